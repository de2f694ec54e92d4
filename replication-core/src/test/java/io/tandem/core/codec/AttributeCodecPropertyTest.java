package io.tandem.core.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.tandem.core.session.Blob;
import java.io.Serializable;
import java.net.URI;
import java.net.URL;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Over generated object graphs (allowed and refused classes at the top, in final fields, non-final fields,
 * list elements, map keys and values, typed and untyped arrays, JDK-written wrappers, nested several levels, with
 * shared references and cycles), for both codecs and several filters:
 *
 * <ul>
 *   <li>encode succeeds exactly when a simple model says every class in the graph is allowed (and, where JDK
 *       serialization writes it, Serializable);
 *   <li>encode succeeds &rArr; decode with the same codec succeeds and gives an equal graph (same shape, same
 *       sharing);
 *   <li>encode refuses &rArr; the exception names a class of the graph that the filter refuses (or that is not
 *       Serializable);
 *   <li>{@code refusalOf} refuses &rArr; encode refuses.
 * </ul>
 */
class AttributeCodecPropertyTest {
  private static final String OWN = AttributeCodecPropertyTest.class.getName();
  private static final ClassLoader LOADER = AttributeCodecPropertyTest.class.getClassLoader();
  private static final int GRAPHS = 250;

  static Stream<Arguments> cases() {
    Map<String, ClassFilter> filters = new LinkedHashMap<>();
    filters.put("package", ClassFilter.of(List.of("io.tandem.core.codec.*")));
    filters.put("star", ClassFilter.of(List.of("*")));
    filters.put("no Other", ClassFilter.of(List.of(OWN + "$Node", OWN + "$Leaf", OWN + "$Loose", OWN + "$Opaque")));
    filters.put("no Leaf, no Loose", ClassFilter.of(List.of(OWN + "$Node", OWN + "$Other", OWN + "$Opaque")));
    filters.put("defaults", ClassFilter.defaultsOnly());
    Stream<Arguments> kryo = Stream.of(KryoFieldEncoding.values()).map(e -> Arguments.of(CodecKind.KRYO, e));
    return Stream.concat(kryo, Stream.of(Arguments.of(CodecKind.JDK, KryoFieldEncoding.COMPATIBLE)))
        .flatMap(codec -> filters.entrySet().stream()
            .map(f -> Arguments.of(codec.get()[0], codec.get()[1], f.getKey(), f.getValue())));
  }

  @ParameterizedTest(name = "{0} ({1}), filter {2}")
  @MethodSource("cases")
  void encodeThenDecode_generatedGraphs_agreeWithTheModel(
      CodecKind kind, KryoFieldEncoding fields, String name, ClassFilter filter) {
    AttributeCodec codec = AttributeCodecs.create(kind, filter, CodecLimits.defaults(), fields);
    Random random = new Random(Objects.hash(kind, name));
    int encoded = 0;
    int refused = 0;
    for (int i = 0; i < GRAPHS; i++) {
      Object value = new Generator(random).top();
      Model model = Model.of(value, kind, filter);
      Throwable failure = catchThrowable(() -> codec.encode(value));
      String what = "graph " + i + " " + model;

      if (model.refusable()) {
        refused++;
        assertThat(failure).as(what).isInstanceOf(CodecException.class);
        if (failure instanceof ClassNotAllowedException e) {
          assertThat(e.direction()).as(what).isEqualTo(CodecDirection.SERIALIZING);
          assertThat(model.refused).as(what).contains(e.className());
          assertThat(filter.allows(e.className())).as(what).isFalse();
        } else {
          assertThat(failure).as(what).isInstanceOf(ClassNotSerializableException.class);
          assertThat(model.notSerializable).as(what).contains(((ClassNotSerializableException) failure).className());
        }
      } else {
        encoded++;
        assertThat(failure).as(what).isNull();
        Blob bytes = codec.encode(value);
        Object decoded = codec.decode(bytes, LOADER);
        assertThat(Graphs.same(value, decoded)).as(what + " decoded as " + decoded).isTrue();
      }
      if (codec.refusalOf(value).isPresent()) {
        assertThat(failure).as("refusalOf refused, so encode must: " + what).isNotNull();
      }
    }
    assertThat(encoded).as("graphs encoded").isPositive();
    assertThat(refused).as("graphs refused").isPositive();
  }

  /** Builds random graphs; a fresh instance per graph. */
  private static final class Generator {
    private final Random random;
    private final List<Node> nodes = new ArrayList<>();

    Generator(Random random) {
      this.random = random;
    }

    Object top() {
      Object value;
      do {
        value = value(4, false);
      } while (value == null);
      return value;
    }

    /**
     * A value; inside a JDK-written wrapper ({@code inWrapper}) no reference goes back outside it, since the
     * embedded stream cannot share objects with the enclosing Kryo stream.
     */
    private Object value(int depth, boolean inWrapper) {
      int pick = random.nextInt(depth > 0 ? 20 : 9);
      return switch (pick) {
        case 0 -> null;
        case 1 -> "s" + random.nextInt(5);
        case 2 -> random.nextInt(100);
        case 3, 4 -> new Leaf("l" + random.nextInt(5));
        case 5, 6 -> new Other(random.nextInt(5));
        case 7 -> random.nextInt(8) == 0 ? new Opaque(random.nextInt(3)) : URI.create("urn:x");
        case 8 -> random.nextInt(6) == 0 ? url() : Boolean.TRUE;
        case 9, 10, 11 -> node(depth, inWrapper);
        case 12 -> new Loose(value(depth - 1, inWrapper));
        case 13 -> list(depth, inWrapper);
        case 14 -> map(depth, inWrapper);
        case 15 -> array(depth, inWrapper);
        case 16 -> others();
        case 17 -> Collections.unmodifiableList(list(depth, true));
        default -> inWrapper || nodes.isEmpty() ? node(depth, inWrapper) : nodes.get(random.nextInt(nodes.size()));
      };
    }

    private Node node(int depth, boolean inWrapper) {
      Node node =
          new Node(
              random.nextBoolean() ? new Leaf("f" + random.nextInt(3)) : null,
              random.nextBoolean() ? new Other(random.nextInt(3)) : null);
      if (!inWrapper) {
        nodes.add(node); // before its fields are set, so that cycles through it are possible
      }
      node.any = value(depth - 1, inWrapper);
      if (random.nextInt(3) == 0) {
        node.next =
            !inWrapper && !nodes.isEmpty() && random.nextBoolean()
                ? nodes.get(random.nextInt(nodes.size()))
                : node(depth - 1, inWrapper);
      }
      if (random.nextBoolean()) {
        node.items = list(depth - 1, inWrapper);
      }
      if (random.nextInt(3) == 0) {
        node.map = map(depth - 1, inWrapper);
      }
      if (random.nextInt(4) == 0) {
        node.others = others();
      }
      return node;
    }

    private List<Object> list(int depth, boolean inWrapper) {
      List<Object> list = new ArrayList<>();
      for (int i = random.nextInt(4); i > 0; i--) {
        list.add(value(depth - 1, inWrapper));
      }
      return list;
    }

    private Map<Object, Object> map(int depth, boolean inWrapper) {
      Map<Object, Object> map = new LinkedHashMap<>();
      for (int i = random.nextInt(4); i > 0; i--) {
        Object key =
            switch (random.nextInt(3)) {
              case 0 -> "k" + random.nextInt(9);
              case 1 -> new Leaf("k" + random.nextInt(9));
              default -> new Other(random.nextInt(9));
            };
        map.put(key, value(depth - 1, inWrapper));
      }
      return map;
    }

    private Object[] array(int depth, boolean inWrapper) {
      Object[] array = new Object[random.nextInt(4)];
      for (int i = 0; i < array.length; i++) {
        array[i] = value(depth - 1, inWrapper);
      }
      return array;
    }

    /** A typed array of a final class: Kryo names neither the elements' class nor, in a final field, the array's. */
    private Other[] others() {
      Other[] array = new Other[random.nextInt(3)];
      for (int i = 0; i < array.length; i++) {
        array[i] = random.nextInt(4) == 0 ? null : new Other(random.nextInt(5));
      }
      return array;
    }

    private static URL url() {
      try {
        return URI.create("http://example.com/").toURL();
      } catch (java.net.MalformedURLException e) {
        throw new AssertionError(e);
      }
    }
  }

  /** The reference model: which classes of a graph the filter refuses, and which objects are not Serializable. */
  private static final class Model {
    final Set<String> refused = new LinkedHashSet<>();
    final Set<String> notSerializable = new LinkedHashSet<>();
    private final CodecKind kind;
    private final ClassFilter filter;
    private final Set<Object> seen = Collections.newSetFromMap(new IdentityHashMap<>());

    private Model(CodecKind kind, ClassFilter filter) {
      this.kind = kind;
      this.filter = filter;
    }

    static Model of(Object value, CodecKind kind, ClassFilter filter) {
      Model model = new Model(kind, filter);
      model.visit(value, kind == CodecKind.JDK);
      return model;
    }

    boolean refusable() {
      return !refused.isEmpty() || !notSerializable.isEmpty();
    }

    /** {@code jdkWritten}: JDK serialization writes this object (the JDK codec, or Kryo's wrapper fallback). */
    private void visit(Object value, boolean jdkWritten) {
      if (value == null || !seen.add(value)) {
        return;
      }
      Class<?> type = value.getClass();
      Class<?> judged = type.isArray() ? type.getComponentType() : type;
      if (!judged.isPrimitive() && !filter.allows(judged.getName())) {
        refused.add(judged.getName());
      }
      if (jdkWritten && !(value instanceof Serializable) && !type.isArray()) {
        notSerializable.add(type.getName());
      }
      if (value instanceof Node n) {
        visit(n.leaf, jdkWritten);
        visit(n.other, jdkWritten);
        visit(n.any, jdkWritten);
        visit(n.next, jdkWritten);
        visit(n.items, jdkWritten);
        visit(n.map, jdkWritten);
        visit(n.others, jdkWritten);
      } else if (value instanceof Loose l) {
        visit(l.payload, jdkWritten);
      } else if (value instanceof Map<?, ?> m) {
        m.forEach(
            (k, v) -> {
              visit(k, jdkWritten);
              visit(v, jdkWritten);
            });
      } else if (value instanceof List<?> list) {
        boolean wrapper = type.getName().startsWith("java.util.Collections$");
        list.forEach(e -> visit(e, jdkWritten || wrapper));
      } else if (value instanceof Object[] array) {
        for (Object e : array) {
          visit(e, jdkWritten);
        }
      }
    }

    @Override
    public String toString() {
      return kind + " refused=" + refused + " notSerializable=" + notSerializable;
    }
  }

  /** Structural equality that also requires the same sharing (a cycle decodes as the same cycle). */
  private static final class Graphs {
    private final IdentityHashMap<Object, Object> pairs = new IdentityHashMap<>();

    static boolean same(Object a, Object b) {
      return new Graphs().compare(a, b);
    }

    private boolean compare(Object a, Object b) {
      if (a == null || b == null) {
        return a == b;
      }
      if (a.getClass() != b.getClass()) {
        return false;
      }
      if (isValue(a)) {
        return a.equals(b);
      }
      Object paired = pairs.get(a);
      if (paired != null) {
        return paired == b;
      }
      pairs.put(a, b);
      if (a instanceof Node x && b instanceof Node y) {
        return compare(x.leaf, y.leaf)
            && compare(x.other, y.other)
            && compare(x.any, y.any)
            && compare(x.next, y.next)
            && compare(x.items, y.items)
            && compare(x.map, y.map)
            && compare(x.others, y.others);
      }
      if (a instanceof Loose x && b instanceof Loose y) {
        return compare(x.payload, y.payload);
      }
      if (a instanceof List<?> x && b instanceof List<?> y) {
        return sameSequence(x.iterator(), y.iterator(), x.size(), y.size());
      }
      if (a instanceof Map<?, ?> x && b instanceof Map<?, ?> y) {
        if (!sameSequence(x.keySet().iterator(), y.keySet().iterator(), x.size(), y.size())) {
          return false;
        }
        return sameSequence(x.values().iterator(), y.values().iterator(), x.size(), y.size());
      }
      if (a instanceof Object[] x && b instanceof Object[] y) {
        return sameSequence(Arrays.asList(x).iterator(), Arrays.asList(y).iterator(), x.length, y.length);
      }
      return false;
    }

    private boolean sameSequence(Iterator<?> a, Iterator<?> b, int sizeA, int sizeB) {
      if (sizeA != sizeB) {
        return false;
      }
      while (a.hasNext()) {
        if (!compare(a.next(), b.next())) {
          return false;
        }
      }
      return true;
    }

    private static boolean isValue(Object o) {
      return o instanceof String
          || o instanceof Number
          || o instanceof Boolean
          || o instanceof Leaf
          || o instanceof Other
          || o instanceof Opaque
          || o instanceof URI
          || o instanceof URL;
    }
  }

  /** A mutable node: final fields of final classes (not named by Kryo) and open fields (named). */
  static class Node implements Serializable {
    private static final long serialVersionUID = 1L;
    final Leaf leaf;
    final Other other;
    Object any;
    Node next;
    List<Object> items;
    Map<Object, Object> map;
    Other[] others;

    Node(Leaf leaf, Other other) {
      this.leaf = leaf;
      this.other = other;
    }

    @Override
    public String toString() {
      return "Node@" + System.identityHashCode(this);
    }
  }

  /** A non-final holder whose payload Kryo always names. */
  static class Loose implements Serializable {
    private static final long serialVersionUID = 1L;
    final Object payload;

    Loose(Object payload) {
      this.payload = payload;
    }
  }

  static final class Leaf implements Serializable {
    private static final long serialVersionUID = 1L;
    final String value;

    Leaf(String value) {
      this.value = value;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Leaf l && l.value.equals(value);
    }

    @Override
    public int hashCode() {
      return value.hashCode();
    }

    @Override
    public String toString() {
      return "Leaf(" + value + ")";
    }
  }

  static final class Other implements Serializable {
    private static final long serialVersionUID = 1L;
    final int value;

    Other(int value) {
      this.value = value;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Other other && other.value == value;
    }

    @Override
    public int hashCode() {
      return value;
    }

    @Override
    public String toString() {
      return "Other(" + value + ")";
    }
  }

  /** Not Serializable: the JDK codec refuses it, Kryo writes it unless inside a JDK-written wrapper. */
  static final class Opaque {
    final int value;

    Opaque(int value) {
      this.value = value;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Opaque other && other.value == value;
    }

    @Override
    public int hashCode() {
      return value;
    }

    @Override
    public String toString() {
      return "Opaque(" + value + ")";
    }
  }
}
