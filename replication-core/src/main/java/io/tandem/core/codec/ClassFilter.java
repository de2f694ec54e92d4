package io.tandem.core.codec;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Decides which classes a codec may deserialize. Replicated bytes come from other cluster members, so a
 * compromised or spoofed member must not be able to instantiate arbitrary classes here: deserializing a
 * "gadget" class is the classic route from a byte stream to remote code execution.
 *
 * <p>A class is allowed when it is not on the built-in deny-list and is either in the built-in safe base set
 * (primitives, boxes, strings, numbers, {@code java.time}, common {@code java.util} collections) or matches a
 * configured pattern. Patterns are:
 *
 * <ul>
 *   <li>{@code com.example.Cart} &ndash; exactly that class (nested classes need their own entry, e.g.
 *       {@code com.example.Cart$Line});
 *   <li>{@code com.example.*} &ndash; classes directly in package {@code com.example} (including their nested
 *       classes), not in subpackages;
 *   <li>{@code com.example.**} &ndash; classes in {@code com.example} and all its subpackages;
 *   <li>{@code *} &ndash; every class except the deny-list (for trusted networks only).
 * </ul>
 *
 * <p>Arrays are allowed exactly when their innermost component type is; array names are accepted in JVM form
 * ({@code [Ljava.lang.String;}, {@code [[I}) and source form ({@code java.lang.String[]}). The deny-list always
 * wins, even over {@code *}.
 *
 * <p>The same filter guards both directions: the codecs check every class they write with {@link #refusalOf(Class)}
 * and every class they read with {@link #check(String)}, so a value is refused on the node that writes it, where
 * the application can be told, rather than by a peer at failover.
 *
 * <p>Implementation notes: instances are immutable and thread-safe. {@link #refusalOf(Class)} caches its answer
 * per class in a {@link ClassValue}, which the JVM stores with the class itself: a lookup is a field read after the
 * first one, and the cache never keeps a web application's class loader alive.
 */
public final class ClassFilter {

  static final String NOT_ALLOWED = "not on the allow-list (tandem allowedClasses)";
  static final String DENIED = "on the built-in deny-list of known deserialization gadgets";
  static final String HIDDEN =
      "a hidden class (a lambda or a runtime-generated class), which no other JVM can load by name";
  static final String PROXY = "a dynamic proxy class, which Tandem never deserializes";

  private static final Pattern VALID_PATTERN =
      Pattern.compile("\\*|[\\p{L}_$][\\p{L}\\p{N}_$]*(\\.[\\p{L}_$][\\p{L}\\p{N}_$]*)*(\\.\\*|\\.\\*\\*)?");

  private static final Set<String> PRIMITIVES =
      Set.of("boolean", "byte", "char", "short", "int", "long", "float", "double", "void");

  /** Always allowed: immutable values and the JDK collections sessions commonly hold. */
  private static final Set<String> BASE_EXACT =
      Set.of(
          "java.lang.Object",
          "java.lang.String",
          "java.lang.Boolean",
          "java.lang.Byte",
          "java.lang.Character",
          "java.lang.Short",
          "java.lang.Integer",
          "java.lang.Long",
          "java.lang.Float",
          "java.lang.Double",
          "java.lang.Void",
          "java.lang.Number",
          "java.lang.Enum",
          "java.lang.Record",
          "java.lang.StringBuilder",
          "java.lang.StringBuffer",
          "java.math.BigDecimal",
          "java.math.BigInteger",
          "java.net.URI",
          "java.util.ArrayList",
          "java.util.LinkedList",
          "java.util.HashMap",
          "java.util.LinkedHashMap",
          "java.util.TreeMap",
          "java.util.HashSet",
          "java.util.LinkedHashSet",
          "java.util.TreeSet",
          "java.util.ArrayDeque",
          "java.util.Vector",
          "java.util.Stack",
          "java.util.Hashtable",
          "java.util.IdentityHashMap",
          "java.util.EnumMap",
          "java.util.Arrays$ArrayList",
          "java.util.Map$Entry", // HashMap.readObject checks a Map.Entry[] against the JDK filter
          "java.util.CollSer", // serial proxy of List.of/Set.of/Map.of
          "java.util.EnumSet",
          "java.util.EnumSet$SerializationProxy",
          "java.util.RegularEnumSet",
          "java.util.JumboEnumSet",
          "java.util.Date",
          "java.util.UUID",
          "java.util.Locale",
          "java.util.Currency",
          "java.util.concurrent.ConcurrentHashMap",
          "java.util.concurrent.ConcurrentHashMap$Segment",
          "java.util.concurrent.ConcurrentSkipListMap",
          "java.util.concurrent.ConcurrentSkipListSet",
          "java.util.concurrent.CopyOnWriteArrayList",
          "java.util.concurrent.CopyOnWriteArraySet",
          "java.util.concurrent.locks.ReentrantLock",
          "java.util.concurrent.locks.ReentrantLock$Sync",
          "java.util.concurrent.locks.ReentrantLock$NonfairSync",
          "java.util.concurrent.locks.AbstractQueuedSynchronizer",
          "java.util.concurrent.locks.AbstractOwnableSynchronizer");

  private static final List<String> BASE_PREFIXES =
      List.of(
          "java.time.",
          "java.util.ImmutableCollections$",
          "java.util.Collections$Unmodifiable",
          "java.util.Collections$Synchronized",
          "java.util.Collections$Empty",
          "java.util.Collections$Singleton",
          "java.util.Collections$CopiesList"); // Collections.nCopies

  /**
   * Classes and packages used by published deserialization gadget chains, mostly from the ysoserial payload
   * collection (https://github.com/frohoff/ysoserial) and the JDK/Jackson deny-lists derived from it. A
   * {@code .**} suffix means the package and its subpackages.
   */
  private static final List<String> DENY =
      List.of(
          // JDK
          "java.lang.Runtime",
          "java.lang.Process",
          "java.lang.ProcessBuilder",
          "java.lang.ProcessImpl",
          "java.lang.Thread",
          "java.lang.ClassLoader",
          "java.lang.reflect.**",
          "java.lang.invoke.**",
          "java.net.URL", // URLDNS: hashCode() resolves the host
          "java.net.URLClassLoader",
          "java.net.InetAddress",
          "java.rmi.**",
          "sun.rmi.**",
          "javax.naming.**",
          "com.sun.jndi.**",
          "javax.management.**", // BadAttributeValueExpException and friends
          "javax.script.**",
          "java.security.SignedObject", // second-stage deserialization
          "sun.reflect.**",
          "jdk.internal.**",
          "com.sun.rowset.**",
          "com.sun.corba.**",
          "com.sun.org.apache.xalan.internal.xsltc.trax.**",
          "com.sun.org.apache.xalan.**",
          "com.sun.org.apache.bcel.**",
          "javax.swing.**",
          // libraries
          "org.apache.xalan.**",
          "org.apache.commons.collections.functors.**",
          "org.apache.commons.collections.keyvalue.TiedMapEntry",
          "org.apache.commons.collections.map.LazyMap",
          "org.apache.commons.collections4.functors.**",
          "org.apache.commons.collections4.comparators.TransformingComparator",
          "org.apache.commons.beanutils.BeanComparator",
          "org.apache.commons.fileupload.disk.DiskFileItem",
          "org.apache.wicket.util.upload.DiskFileItem",
          "org.apache.click.control.**",
          "org.apache.myfaces.el.**",
          "org.apache.myfaces.view.facelets.el.**",
          "org.codehaus.groovy.runtime.**",
          "org.springframework.beans.factory.**",
          "org.springframework.aop.framework.**",
          "org.springframework.core.SerializableTypeWrapper",
          "org.springframework.core.SerializableTypeWrapper$MethodInvokeTypeProvider",
          "org.hibernate.engine.spi.TypedValue",
          "org.hibernate.tuple.component.**",
          "org.jboss.interceptor.**",
          "org.jboss.weld.interceptor.**",
          "org.mozilla.javascript.**",
          "org.python.**",
          "com.mchange.v2.c3p0.**",
          "com.sun.syndication.feed.impl.**",
          "com.rometools.rome.feed.impl.**",
          "com.vaadin.data.util.**",
          "net.sf.json.**",
          "javassist.**",
          "bsh.**",
          "clojure.**");

  private static final ClassFilter DEFAULTS_ONLY = new ClassFilter(List.of());

  private final List<String> patterns;
  private final boolean allowAll;
  private final Set<String> exact;
  private final List<String> directPackages;
  private final List<String> packageTrees;
  private final ClassValue<Optional<String>> refusals =
      new ClassValue<>() {
        @Override
        protected Optional<String> computeValue(Class<?> type) {
          return Optional.ofNullable(refusal(type));
        }
      };

  private ClassFilter(List<String> patterns) {
    this.patterns = List.copyOf(patterns);
    boolean all = false;
    List<String> exactNames = new ArrayList<>();
    List<String> direct = new ArrayList<>();
    List<String> trees = new ArrayList<>();
    for (String p : this.patterns) {
      if (p.equals("*")) {
        all = true;
      } else if (p.endsWith(".**")) {
        trees.add(p.substring(0, p.length() - 2));
      } else if (p.endsWith(".*")) {
        direct.add(p.substring(0, p.length() - 1));
      } else {
        exactNames.add(p);
      }
    }
    this.allowAll = all;
    this.exact = Set.copyOf(exactNames);
    this.directPackages = List.copyOf(direct);
    this.packageTrees = List.copyOf(trees);
  }

  /**
   * A filter allowing the built-in base set plus classes matching {@code allowPatterns}.
   *
   * @throws IllegalArgumentException naming the first malformed pattern
   */
  public static ClassFilter of(Collection<String> allowPatterns) {
    Objects.requireNonNull(allowPatterns, "allowPatterns");
    List<String> cleaned = new ArrayList<>();
    for (String raw : allowPatterns) {
      String p = raw == null ? "" : raw.strip();
      if (!VALID_PATTERN.matcher(p).matches()) {
        throw new IllegalArgumentException(
            "malformed allowedClasses pattern '"
                + raw
                + "': use a class name, 'pkg.*', 'pkg.**' or '*'");
      }
      if (!cleaned.contains(p)) {
        cleaned.add(p);
      }
    }
    return new ClassFilter(cleaned);
  }

  /** A filter allowing only the built-in base set. */
  public static ClassFilter defaultsOnly() {
    return DEFAULTS_ONLY;
  }

  /** The configured allow patterns, without the built-in base set. */
  public List<String> patterns() {
    return patterns;
  }

  /** Whether {@code className} may be deserialized. */
  public boolean allows(String className) {
    return refusal(className) == null;
  }

  /**
   * Throws unless {@code className} may be deserialized.
   *
   * @throws ClassNotAllowedException naming the class, whether it is denied or merely not allowed, and that
   *     deserializing failed
   */
  public void check(String className) {
    String why = refusal(className);
    if (why != null) {
      throw ClassNotAllowedException.onRead(className, why);
    }
  }

  /**
   * Why instances of {@code type} may not be replicated, or empty when they may: the reason alone (for example
   * {@code "not on the allow-list (tandem allowedClasses)"}), without the class name. Cheap after the first call
   * for a class: the answer is cached per class.
   *
   * <p>Checks what a peer would check by name ({@link #allows(String)} on {@code type.getName()}, arrays by their
   * innermost component type), with three refinements for classes a peer cannot see: an enum constant with a body
   * is judged as its enum (that is the name both codecs write); a hidden class (lambdas) is refused, since no
   * other JVM can load it; and a dynamic proxy class is refused, since the reader never accepts one.
   */
  public Optional<String> refusalOf(Class<?> type) {
    return refusals.get(Objects.requireNonNull(type, "type"));
  }

  /**
   * Throws unless instances of {@code type} may be serialized: the writer's side of {@link #check(String)}.
   *
   * @throws ClassNotAllowedException naming the class, the reason, and that serializing failed
   */
  void checkWrite(Class<?> type) {
    Optional<String> why = refusalOf(type);
    if (why.isPresent()) {
      throw ClassNotAllowedException.onWrite(refusedName(type), why.get());
    }
  }

  /** The name a refusal of {@code type} reports: the innermost component of an array, an enum for its constant. */
  static String refusedName(Class<?> type) {
    return judged(type).getName();
  }

  private static Class<?> judged(Class<?> type) {
    Class<?> c = type;
    while (c.isArray()) {
      c = c.getComponentType();
    }
    if (!c.isEnum() && c.getSuperclass() != null && c.getSuperclass().isEnum()) {
      c = c.getSuperclass(); // an enum constant with a body is written as its enum
    }
    return c;
  }

  private String refusal(Class<?> type) {
    Class<?> c = judged(type);
    if (c.isPrimitive()) {
      return null;
    }
    if (c.isHidden()) {
      return HIDDEN;
    }
    if (Proxy.isProxyClass(c)) {
      return PROXY;
    }
    return refusal(c.getName());
  }

  /** Null when allowed, otherwise the reason for refusal. */
  String refusal(String className) {
    if (className == null || className.isEmpty()) {
      return NOT_ALLOWED;
    }
    String name = componentName(className);
    if (name == null) {
      return NOT_ALLOWED; // malformed array descriptor
    }
    if (PRIMITIVES.contains(name)) {
      return null;
    }
    if (isDenied(name)) {
      return DENIED;
    }
    if (allowAll || inBaseSet(name) || matchesPatterns(name)) {
      return null;
    }
    return NOT_ALLOWED;
  }

  private static boolean isDenied(String name) {
    for (String d : DENY) {
      if (d.endsWith(".**")) {
        if (name.startsWith(d.substring(0, d.length() - 2))) {
          return true;
        }
      } else if (name.equals(d) || name.startsWith(d + "$")) {
        return true;
      }
    }
    return false;
  }

  private static boolean inBaseSet(String name) {
    if (BASE_EXACT.contains(name)) {
      return true;
    }
    for (String prefix : BASE_PREFIXES) {
      if (name.startsWith(prefix)) {
        return true;
      }
    }
    return false;
  }

  private boolean matchesPatterns(String name) {
    if (exact.contains(name)) {
      return true;
    }
    for (String tree : packageTrees) {
      if (name.startsWith(tree)) {
        return true;
      }
    }
    for (String pkg : directPackages) {
      if (name.startsWith(pkg) && name.indexOf('.', pkg.length()) < 0) {
        return true;
      }
    }
    return false;
  }

  /**
   * The innermost component of an array name, the name itself for a non-array, or null for a malformed array
   * descriptor. Primitive components come back as their keyword ({@code int}).
   */
  static String componentName(String className) {
    String name = className;
    while (name.endsWith("[]")) {
      name = name.substring(0, name.length() - 2);
    }
    if (!name.startsWith("[")) {
      return name;
    }
    int dims = 0;
    while (dims < name.length() && name.charAt(dims) == '[') {
      dims++;
    }
    String rest = name.substring(dims);
    if (rest.length() == 1) {
      return switch (rest.charAt(0)) {
        case 'Z' -> "boolean";
        case 'B' -> "byte";
        case 'C' -> "char";
        case 'S' -> "short";
        case 'I' -> "int";
        case 'J' -> "long";
        case 'F' -> "float";
        case 'D' -> "double";
        default -> null;
      };
    }
    if (rest.length() > 2 && rest.charAt(0) == 'L' && rest.endsWith(";")) {
      return rest.substring(1, rest.length() - 1);
    }
    return null;
  }

  @Override
  public String toString() {
    return "ClassFilter" + patterns;
  }
}
