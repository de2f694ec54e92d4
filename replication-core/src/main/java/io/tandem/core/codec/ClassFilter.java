package io.tandem.core.codec;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * Which classes may be deserialized: the built-in safe JDK value types, plus the operator's allow-list, minus a
 * built-in deny-list of known deserialization gadgets, which always wins. Both codecs consult the same filter
 * before a class is loaded. Arrays are judged by their component type.
 *
 * <p>Patterns: an exact class name, {@code pkg.*} (classes directly in {@code pkg}), {@code pkg.**} ({@code pkg}
 * and its subpackages), or {@code *} (everything not denied).
 */
public final class ClassFilter {
  /** Types that hold plain values and no behaviour that runs on deserialization. */
  private static final List<String> SAFE_BASE =
      List.of(
          "java.lang.String", "java.lang.Boolean", "java.lang.Character", "java.lang.Byte", "java.lang.Short",
          "java.lang.Integer", "java.lang.Long", "java.lang.Float", "java.lang.Double", "java.lang.Number",
          "java.lang.Enum", "java.lang.Object", "java.lang.StringBuilder", "java.lang.StringBuffer",
          "java.math.BigDecimal", "java.math.BigInteger", "java.time.**", "java.util.ArrayList",
          "java.util.LinkedList", "java.util.HashMap", "java.util.LinkedHashMap", "java.util.TreeMap",
          "java.util.HashSet", "java.util.LinkedHashSet", "java.util.TreeSet", "java.util.ArrayDeque",
          "java.util.EnumMap", "java.util.EnumSet", "java.util.RegularEnumSet", "java.util.JumboEnumSet",
          "java.util.Date", "java.util.UUID", "java.util.Locale", "java.util.Currency", "java.util.Map$Entry",
          "java.util.AbstractMap$SimpleEntry", "java.util.AbstractMap$SimpleImmutableEntry",
          "java.util.Arrays$ArrayList", "java.util.Collections$*", "java.util.ImmutableCollections$*", "java.util.CollSer",
          "java.util.concurrent.ConcurrentHashMap", "java.util.concurrent.CopyOnWriteArrayList",
          "java.util.concurrent.atomic.AtomicInteger", "java.util.concurrent.atomic.AtomicLong",
          "java.util.concurrent.atomic.AtomicBoolean", "java.net.URI", "java.util.Vector", "java.util.Hashtable",
          "java.util.Stack", "java.util.BitSet", "java.util.OptionalInt", "java.sql.Date", "java.sql.Timestamp",
          "java.sql.Time", "java.util.GregorianCalendar", "java.util.TimeZone", "sun.util.calendar.ZoneInfo",
          "java.util.SimpleTimeZone", "java.lang.Record");

  /**
   * Classes and packages used as deserialization gadgets in published exploit chains (the ysoserial and
   * marshalsec payload lists, and the JDK's own RMI/JNDI/XSLT entry points). No allow-list can re-enable them.
   */
  private static final List<String> DENY =
      List.of(
          "org.apache.commons.collections.functors.**", "org.apache.commons.collections4.functors.**",
          "org.apache.commons.collections.keyvalue.TiedMapEntry", "org.apache.commons.collections4.keyvalue.TiedMapEntry",
          "org.apache.commons.collections.map.LazyMap", "org.apache.commons.collections4.map.LazyMap",
          "org.apache.commons.beanutils.BeanComparator", "org.apache.commons.fileupload.disk.DiskFileItem",
          "org.codehaus.groovy.runtime.**", "groovy.lang.**", "org.springframework.beans.factory.**",
          "org.springframework.aop.**", "org.springframework.core.SerializableTypeWrapper*",
          "com.sun.org.apache.xalan.internal.xsltc.trax.**", "org.apache.xalan.**", "com.sun.rowset.**",
          "com.sun.jndi.**", "javax.naming.**", "java.rmi.**", "sun.rmi.**", "javax.management.**",
          "java.net.URL", "java.net.InetAddress", "java.net.Inet4Address", "java.net.Inet6Address",
          "java.lang.Runtime", "java.lang.ProcessBuilder", "java.lang.Process", "java.lang.Thread",
          "java.lang.ClassLoader", "java.lang.reflect.**", "java.lang.invoke.**", "javax.script.**",
          "bsh.**", "org.python.**", "clojure.**", "com.mchange.v2.c3p0.**", "org.hibernate.engine.spi.TypedValue",
          "org.hibernate.tuple.component.**", "org.jboss.interceptor.**", "org.jboss.weld.interceptor.**",
          "com.sun.syndication.feed.impl.**", "com.rometools.rome.feed.impl.**", "net.sf.json.JSONObject",
          "org.mozilla.javascript.**", "com.vaadin.data.util.**", "org.apache.myfaces.**",
          "org.apache.wicket.util.upload.**", "org.apache.click.control.**", "com.alibaba.fastjson.JSONObject",
          "sun.misc.**", "jdk.internal.**", "java.util.PriorityQueue", "java.util.concurrent.PriorityBlockingQueue",
          "javax.xml.transform.**", "org.apache.tomcat.dbcp.**", "org.apache.commons.dbcp.**",
          "org.apache.commons.dbcp2.**", "com.zaxxer.hikari.**", "javax.sql.rowset.**");

  private static final ClassFilter DEFAULTS = new ClassFilter(List.of());

  private final List<String> allowPatterns;
  private final List<Pattern> allowed;
  private static final List<Pattern> SAFE = compile(SAFE_BASE);
  private static final List<Pattern> DENIED = compile(DENY);

  private ClassFilter(Collection<String> allowPatterns) {
    this.allowPatterns = List.copyOf(allowPatterns);
    this.allowed = compile(this.allowPatterns);
  }

  public static ClassFilter of(Collection<String> allowPatterns) {
    return new ClassFilter(allowPatterns);
  }

  public static ClassFilter defaultsOnly() {
    return DEFAULTS;
  }

  public List<String> patterns() {
    return allowPatterns;
  }

  public boolean allows(String className) {
    return refusal(className) == null;
  }

  /** @throws ClassNotAllowedException naming the class and the reason */
  public void check(String className) {
    String why = refusal(className);
    if (why != null) {
      throw new ClassNotAllowedException(className, why);
    }
  }

  /** Why the class is refused, or null when it is allowed. */
  private String refusal(String className) {
    String name = componentName(className);
    if (name == null) {
      return null; // an array of primitives
    }
    if (matchesAny(DENIED, name)) {
      return "it is on Tandem's built-in deny-list of known deserialization gadgets";
    }
    if (matchesAny(SAFE, name) || matchesAny(allowed, name)) {
      return null;
    }
    return "it is not on the allow-list; add it (or its package, as com.example.*  or com.example.**) to the"
        + " Manager's allowedClasses attribute";
  }

  /** The element class name of an array class name (JVM or Java form), the name itself otherwise; null for primitives. */
  private static String componentName(String className) {
    String name = className;
    while (name.startsWith("[")) {
      name = name.substring(1);
    }
    if (name.length() != className.length()) {
      if (name.startsWith("L") && name.endsWith(";")) {
        return name.substring(1, name.length() - 1);
      }
      return name.length() == 1 ? null : name;
    }
    while (name.endsWith("[]")) {
      name = name.substring(0, name.length() - 2);
    }
    return PRIMITIVES.contains(name) ? null : name;
  }

  private static final Set<String> PRIMITIVES =
      Set.of("boolean", "byte", "char", "short", "int", "long", "float", "double");

  private static boolean matchesAny(List<Pattern> patterns, String name) {
    for (Pattern p : patterns) {
      if (p.matches(name)) {
        return true;
      }
    }
    return false;
  }

  private static List<Pattern> compile(Collection<String> patterns) {
    List<Pattern> out = new ArrayList<>();
    for (String p : patterns) {
      out.add(Pattern.of(p));
    }
    return List.copyOf(out);
  }

  /** One compiled pattern. */
  private record Pattern(Kind kind, String text) {
    enum Kind { ALL, EXACT, PACKAGE, SUBTREE, PREFIX }

    static Pattern of(String p) {
      if (p.equals("*")) {
        return new Pattern(Kind.ALL, "");
      }
      if (p.endsWith(".**")) {
        return new Pattern(Kind.SUBTREE, p.substring(0, p.length() - 2));
      }
      if (p.endsWith(".*")) {
        return new Pattern(Kind.PACKAGE, p.substring(0, p.length() - 1));
      }
      if (p.endsWith("*")) {
        return new Pattern(Kind.PREFIX, p.substring(0, p.length() - 1));
      }
      return new Pattern(Kind.EXACT, p);
    }

    boolean matches(String name) {
      return switch (kind) {
        case ALL -> true;
        case EXACT -> name.equals(text);
        case SUBTREE -> name.startsWith(text);
        case PACKAGE -> name.startsWith(text) && name.indexOf('.', text.length()) < 0;
        case PREFIX -> name.startsWith(text);
      };
    }
  }
}
