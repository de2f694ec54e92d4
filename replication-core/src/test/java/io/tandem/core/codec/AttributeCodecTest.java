package io.tandem.core.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import io.tandem.core.codec.fixtures.Address;
import io.tandem.core.codec.fixtures.ChildFirstLoader;
import io.tandem.core.codec.fixtures.Customer;
import io.tandem.core.codec.fixtures.Forbidden;
import io.tandem.core.codec.fixtures.LoaderProbe;
import io.tandem.core.codec.fixtures.Node;
import io.tandem.core.codec.fixtures.Tier;
import io.tandem.core.session.Blob;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.URI;
import java.net.URL;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.LinkedList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

class AttributeCodecTest {
  private static final ClassFilter FIXTURES = ClassFilter.of(List.of("io.tandem.core.codec.fixtures.**"));
  private static final ClassFilter CUSTOMER_ONLY =
      ClassFilter.of(
          List.of(
              "io.tandem.core.codec.fixtures.Customer",
              "io.tandem.core.codec.fixtures.Address",
              "io.tandem.core.codec.fixtures.Tier"));
  private static final ClassLoader LOADER = AttributeCodecTest.class.getClassLoader();

  private static AttributeCodec codec(CodecKind kind, ClassFilter filter) {
    return AttributeCodecs.create(kind, filter, CodecLimits.defaults());
  }

  private static Object roundTrip(AttributeCodec codec, Object value) {
    return codec.decode(codec.encode(value), LOADER);
  }

  static Stream<Arguments> values() {
    Map<String, Object> nested = new HashMap<>();
    nested.put("inner", new TreeMap<>(Map.of("a", 1, "b", List.of(1L, 2L))));
    nested.put("list", new ArrayList<>(List.of("x", "y")));
    nested.put("null", null);
    List<Object> samples =
        List.of(
            "hello",
            "ünïcødé ✓",
            42,
            42L,
            3.5d,
            1.5f,
            true,
            'c',
            (byte) 7,
            (short) 9,
            new BigDecimal("12.3400"),
            new BigInteger("123456789012345678901234567890"),
            LocalDate.of(2026, 11, 22),
            Instant.ofEpochSecond(1_700_000_000L, 123),
            Duration.ofMillis(1500),
            ZonedDateTime.of(2026, 1, 2, 3, 4, 5, 6, ZoneId.of("Europe/Paris")),
            UUID.fromString("123e4567-e89b-12d3-a456-426614174000"),
            URI.create("https://example.com/a?b=c"),
            Locale.CANADA_FRENCH,
            new ArrayList<>(List.of(1, 2, 3)),
            new LinkedList<>(List.of("a", "b")),
            new LinkedHashSet<>(List.of("z", "a")),
            new LinkedHashMap<>(Map.of("k", "v")),
            nested,
            List.of(1, 2, 3),
            Set.of("one"),
            Map.of("a", 1, "b", 2),
            Collections.unmodifiableList(new ArrayList<>(List.of("u"))),
            Collections.unmodifiableMap(new HashMap<>(Map.of("u", 1))),
            Collections.emptyList(),
            Collections.singletonMap("s", 1),
            Arrays.asList("p", "q"),
            new int[] {1, 2, 3},
            new long[] {4L},
            new byte[] {1, 2},
            new String[] {"a", null, "c"},
            new Object[] {"mixed", 1, List.of(2)},
            new int[][] {{1}, {2, 3}},
            Tier.GOLD,
            new Address("Lyon", 69000),
            new Customer("Ada", new Address("London", 1), Tier.FREE, new ArrayList<>(List.of("vip"))));
    return Stream.of(CodecKind.values())
        .flatMap(kind -> samples.stream().map(v -> Arguments.of(kind, v)));
  }

  @ParameterizedTest(name = "{0}: {1}")
  @MethodSource("values")
  void roundTripsValues(CodecKind kind, Object value) {
    AttributeCodec codec = codec(kind, FIXTURES);
    Object decoded = roundTrip(codec, value);
    assertThat(decoded).isEqualTo(value);
    assertThat(decoded.getClass()).isEqualTo(value.getClass());
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void nameMatchesKind(CodecKind kind) {
    assertThat(codec(kind, FIXTURES).name()).isEqualTo(kind.configName());
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void keepsCyclesAndSharedReferences(CodecKind kind) {
    Node a = new Node("a");
    Node b = new Node("b");
    a.next = b;
    b.next = a;
    List<Node> list = new ArrayList<>(List.of(a, b, a));
    @SuppressWarnings("unchecked")
    List<Node> decoded = (List<Node>) roundTrip(codec(kind, FIXTURES), list);
    assertThat(decoded.get(0)).isSameAs(decoded.get(2));
    assertThat(decoded.get(0).next).isSameAs(decoded.get(1));
    assertThat(decoded.get(1).next).isSameAs(decoded.get(0));
    assertThat(decoded.get(0).label).isEqualTo("a");
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void decodesThroughTheGivenClassLoader(CodecKind kind) throws Exception {
    String name = LoaderProbe.class.getName();
    ClassLoader writer = new ChildFirstLoader(LOADER, name);
    Object probe = writer.loadClass(name).getConstructor(String.class).newInstance("from-writer");
    AttributeCodec codec = codec(kind, FIXTURES);
    Blob blob = codec.encode(probe);

    ClassLoader reader = new ChildFirstLoader(LOADER, name);
    Object decoded = codec.decode(blob, reader);
    assertThat(decoded.getClass().getName()).isEqualTo(name);
    assertThat(decoded.getClass().getClassLoader()).isSameAs(reader);
    assertThat(decoded.getClass().getField("value").get(decoded)).isEqualTo("from-writer");

    // The same pooled codec must not hand back a class cached from an earlier loader.
    ClassLoader another = new ChildFirstLoader(LOADER, name);
    assertThat(codec.decode(blob, another).getClass().getClassLoader()).isSameAs(another);
    assertThat(codec.decode(blob, LOADER).getClass()).isSameAs(LoaderProbe.class);
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void refusesClassOutsideAllowList(CodecKind kind) {
    Blob blob = codec(kind, FIXTURES).encode(new Forbidden());
    assertThatThrownBy(() -> codec(kind, CUSTOMER_ONLY).decode(blob, LOADER))
        .isInstanceOf(ClassNotAllowedException.class)
        .hasMessageContaining(Forbidden.class.getName())
        .hasMessageContaining("not on the allow-list");
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void refusesClassNestedInAllowedCollection(CodecKind kind) {
    Map<String, Object> map = new HashMap<>();
    map.put("ok", new ArrayList<>(List.of("fine", new Forbidden())));
    Blob blob = codec(kind, FIXTURES).encode(map);
    assertThatThrownBy(() -> codec(kind, CUSTOMER_ONLY).decode(blob, LOADER))
        .isInstanceOf(ClassNotAllowedException.class)
        .hasMessageContaining(Forbidden.class.getName());
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void refusesUnlistedFinalFieldTypeThatKryoDoesNotName(CodecKind kind) {
    // Customer.address is a record (final): Kryo writes no class name for it.
    ClassFilter noAddress =
        ClassFilter.of(
            List.of("io.tandem.core.codec.fixtures.Customer", "io.tandem.core.codec.fixtures.Tier"));
    Blob blob = codec(kind, FIXTURES).encode(new Customer("Ada", new Address("x", 1), Tier.GOLD, List.of()));
    assertThatThrownBy(() -> codec(kind, noAddress).decode(blob, LOADER))
        .isInstanceOf(ClassNotAllowedException.class)
        .hasMessageContaining(Address.class.getName());
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void refusesClassInsideJdkWrappedCollection(CodecKind kind) {
    Object value = Collections.unmodifiableList(new ArrayList<>(List.of(new Forbidden())));
    Blob blob = codec(kind, FIXTURES).encode(value);
    assertThatThrownBy(() -> codec(kind, CUSTOMER_ONLY).decode(blob, LOADER))
        .isInstanceOf(ClassNotAllowedException.class)
        .hasMessageContaining(Forbidden.class.getName());
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void refusesToEncodeWhatPeersWouldRefuse(CodecKind kind) {
    assertThatThrownBy(() -> codec(kind, CUSTOMER_ONLY).encode(new Forbidden()))
        .isInstanceOf(ClassNotAllowedException.class)
        .hasMessageContaining(Forbidden.class.getName());
  }

  @Test
  void refusesDenyListedClassEvenWithStarForKryo() throws Exception {
    Kryo plain = plainKryo();
    Blob blob = write(plain, out -> plain.writeClassAndObject(out, new URL("http://example.com/")));
    assertThatThrownBy(() -> codec(CodecKind.KRYO, ClassFilter.of(List.of("*"))).decode(blob, LOADER))
        .isInstanceOf(ClassNotAllowedException.class)
        .hasMessageContaining("java.net.URL")
        .hasMessageContaining("deny-list");
  }

  @Test
  void refusesDenyListedClassEvenWithStarForJdk() throws Exception {
    Blob blob = jdkBytes(new URL("http://example.com/"));
    assertThatThrownBy(() -> codec(CodecKind.JDK, ClassFilter.of(List.of("*"))).decode(blob, LOADER))
        .isInstanceOf(ClassNotAllowedException.class)
        .hasMessageContaining("java.net.URL")
        .hasMessageContaining("deny-list");
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void refusesDenyListedClassOnEncodeEvenWithStar(CodecKind kind) throws Exception {
    URL url = new URL("http://example.com/");
    assertThatThrownBy(() -> codec(kind, ClassFilter.of(List.of("*"))).encode(url))
        .isInstanceOf(ClassNotAllowedException.class)
        .hasMessageContaining("java.net.URL");
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void oversizedValueIsRefused(CodecKind kind) {
    AttributeCodec small = AttributeCodecs.create(kind, FIXTURES, new CodecLimits(1024, 200, 1000));
    String big = "x".repeat(5000);
    assertThatThrownBy(() -> small.encode(big))
        .isInstanceOf(ValueTooLargeException.class)
        .hasMessageContaining("java.lang.String")
        .hasMessageContaining("1024");
    Blob blob = codec(kind, FIXTURES).encode(big);
    assertThatThrownBy(() -> small.decode(blob, LOADER)).isInstanceOf(ValueTooLargeException.class);
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void deepNestingBeyondMaxDepthFails(CodecKind kind) {
    AttributeCodec deep = AttributeCodecs.create(kind, FIXTURES, new CodecLimits(1 << 20, 5000, 1000));
    AttributeCodec shallow = AttributeCodecs.create(kind, FIXTURES, new CodecLimits(1 << 20, 50, 1000));
    Node chain = Node.chain(300);
    Blob blob = deep.encode(chain);
    assertThat(deep.decode(blob, LOADER)).isInstanceOf(Node.class);
    Throwable t = catchThrowable(() -> shallow.decode(blob, LOADER));
    assertThat(t).isExactlyInstanceOf(CodecException.class).hasMessageContaining("depth");
    if (kind == CodecKind.KRYO) {
      assertThat(t).hasMessageContaining(Node.class.getName());
    }
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void veryDeepGraphOnEncodeIsACodecException(CodecKind kind) {
    Node chain = Node.chain(200_000);
    Throwable t = catchThrowable(() -> codec(kind, FIXTURES).encode(chain));
    assertThat(t).isInstanceOf(CodecException.class);
  }

  @Test
  void collectionLimitApplies() {
    List<Integer> list = new ArrayList<>(Collections.nCopies(50, 1));
    for (CodecKind kind : CodecKind.values()) {
      AttributeCodec tight = AttributeCodecs.create(kind, FIXTURES, new CodecLimits(1 << 20, 50, 10));
      Blob blob = codec(kind, FIXTURES).encode(list);
      assertThatThrownBy(() -> tight.decode(blob, LOADER))
          .as(kind.name())
          .isExactlyInstanceOf(CodecException.class);
    }
  }

  static Stream<Arguments> hugeKryoStreams() {
    return Stream.of(
        Arguments.of(ArrayList.class, (Consumer<Output>) o -> o.writeVarIntFlag(false, Integer.MAX_VALUE, true)),
        Arguments.of(LinkedHashSet.class, (Consumer<Output>) o -> o.writeVarIntFlag(false, Integer.MAX_VALUE, true)),
        Arguments.of(HashMap.class, (Consumer<Output>) o -> o.writeVarInt(Integer.MAX_VALUE, true)),
        Arguments.of(Object[].class, (Consumer<Output>) o -> o.writeVarInt(Integer.MAX_VALUE, true)),
        Arguments.of(String[].class, (Consumer<Output>) o -> o.writeVarInt(Integer.MAX_VALUE, true)),
        Arguments.of(boolean[].class, (Consumer<Output>) o -> o.writeVarInt(Integer.MAX_VALUE, true)),
        Arguments.of(byte[].class, (Consumer<Output>) o -> o.writeVarInt(Integer.MAX_VALUE, true)),
        Arguments.of(long[].class, (Consumer<Output>) o -> o.writeVarInt(Integer.MAX_VALUE, true)),
        Arguments.of(BigInteger.class, (Consumer<Output>) o -> o.writeVarInt(Integer.MAX_VALUE, true)),
        Arguments.of(
            StringBuilder.class,
            (Consumer<Output>)
                o -> {
                  o.writeVarIntFlag(true, Integer.MAX_VALUE, true);
                  o.writeByte((byte) 0xC3);
                }));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("hugeKryoStreams")
  @Timeout(5)
  void craftedHugeLengthFailsFastWithoutAllocating(Class<?> type, Consumer<Output> header) {
    Kryo plain = plainKryo();
    plain.addDefaultSerializer(type, new HeaderOnlySerializer(header));
    Object instance = sampleOf(type);
    Blob blob = write(plain, out -> plain.writeClassAndObject(out, instance));
    ClassFilter filter =
        ClassFilter.of(List.of("io.tandem.core.codec.fixtures.**", "java.lang.StringBuilder"));
    Throwable t = catchThrowable(() -> codec(CodecKind.KRYO, filter).decode(blob, LOADER));
    assertThat(t).isExactlyInstanceOf(CodecException.class).hasMessageContaining("declared");
  }

  @Test
  @Timeout(5)
  void craftedHugeStringFailsFast() {
    // Whatever Kryo writes before a top-level string's payload, followed by a UTF-8 length of 2^31-2 chars.
    Kryo plain = plainKryo();
    byte[] real = write(plain, o -> plain.writeClassAndObject(o, "é")).bytes();
    Output payload = new Output(16, -1);
    payload.writeString("é");
    Output out = new Output(64, -1);
    out.writeBytes(real, 0, real.length - payload.position()); // the tag, the class, the reference
    out.writeVarIntFlag(true, Integer.MAX_VALUE, true);
    out.writeByte((byte) 0xC3);
    Throwable t = catchThrowable(() -> codec(CodecKind.KRYO, FIXTURES).decode(Blob.wrap(out.toBytes()), LOADER));
    assertThat(t).isExactlyInstanceOf(CodecException.class).hasMessageContaining("declared");
  }

  @Test
  @Timeout(5)
  void craftedHugeJdkArrayFailsFast() throws IOException {
    byte[] bytes = jdkBytes(new int[3]).bytes();
    // The stream ends with the 4-byte length and three 4-byte ints: declare 2^31-1 elements.
    ByteBuffer.wrap(bytes).putInt(bytes.length - 16, Integer.MAX_VALUE);
    Throwable t = catchThrowable(() -> codec(CodecKind.JDK, FIXTURES).decode(Blob.wrap(bytes), LOADER));
    assertThat(t).isExactlyInstanceOf(CodecException.class).hasMessageContaining("maxCollectionSize");
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void garbageBytesAreCodecExceptions(CodecKind kind) {
    AttributeCodec codec = codec(kind, FIXTURES);
    Random random = new Random(42);
    for (int i = 0; i < 2000; i++) {
      byte[] bytes = new byte[1 + random.nextInt(64)];
      random.nextBytes(bytes);
      if (kind == CodecKind.KRYO && i % 2 == 0) { // past the encoding tag, into Kryo's own parsing
        bytes[0] = KryoFieldEncoding.values()[i / 2 % KryoFieldEncoding.values().length].tag();
      }
      Throwable t = catchThrowable(() -> codec.decode(Blob.wrap(bytes), LOADER));
      if (t != null) {
        assertThat(t).as("garbage %s", Blob.wrap(bytes)).isInstanceOf(CodecException.class);
      }
    }
    assertThatThrownBy(() -> codec.decode(Blob.EMPTY, LOADER)).isInstanceOf(CodecException.class);
    assertThatThrownBy(() -> codec.decode(Blob.wrap(new byte[] {(byte) 0xFF, 1, 2, 3}), LOADER))
        .isInstanceOf(CodecException.class);
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void truncatedBytesAreCodecExceptions(CodecKind kind) {
    AttributeCodec codec = codec(kind, FIXTURES);
    Map<String, Object> value = new HashMap<>();
    value.put("customer", new Customer("Ada", new Address("London", 1), Tier.GOLD, List.of("a")));
    value.put("when", Instant.now());
    byte[] full = codec.encode(value).bytes();
    for (int len = 0; len < full.length; len++) {
      byte[] cut = Arrays.copyOf(full, len);
      assertThatThrownBy(() -> codec.decode(Blob.wrap(cut), LOADER))
          .as("truncated to %d of %d", cut.length, full.length)
          .isInstanceOf(CodecException.class);
    }
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void nonSerializableValue(CodecKind kind) {
    Object value = new NotSerializable();
    if (kind == CodecKind.JDK) {
      assertThatThrownBy(() -> codec(kind, ClassFilter.of(List.of("*"))).encode(value))
          .isExactlyInstanceOf(ClassNotSerializableException.class)
          .hasMessageContaining(NotSerializable.class.getName());
    } else {
      // Kryo needs no Serializable marker.
      assertThat(roundTrip(codec(kind, ClassFilter.of(List.of("*"))), value)).isInstanceOf(NotSerializable.class);
    }
  }

  @Test
  void codecIsThreadSafe() throws Exception {
    AttributeCodec codec = codec(CodecKind.KRYO, FIXTURES);
    Customer c = new Customer("Ada", new Address("London", 1), Tier.GOLD, List.of("a"));
    List<Thread> threads = new ArrayList<>();
    List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
    for (int t = 0; t < 8; t++) {
      Thread thread =
          new Thread(
              () -> {
                try {
                  for (int i = 0; i < 500; i++) {
                    assertThat(roundTrip(codec, c)).isEqualTo(c);
                  }
                } catch (Throwable e) {
                  failures.add(e);
                }
              });
      threads.add(thread);
      thread.start();
    }
    for (Thread thread : threads) {
      thread.join();
    }
    assertThat(failures).isEmpty();
  }

  /** Not Serializable, and without a no-arg constructor. */
  static final class NotSerializable {
    final int x;

    NotSerializable() {
      this(1);
    }

    NotSerializable(int x) {
      this.x = x;
    }
  }

  private static Kryo plainKryo() {
    Kryo kryo = new Kryo();
    kryo.setRegistrationRequired(false);
    kryo.setReferences(true);
    return kryo;
  }

  /** What a peer's plain Kryo writes, as a value of the codec: after the tag of the field encoding it uses. */
  private static Blob write(Kryo kryo, ThrowingConsumer<Output> writer) {
    Output out = new Output(256, -1);
    out.writeByte(KryoFieldEncoding.FAST.tag());
    try {
      writer.accept(out);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
    return Blob.wrap(out.toBytes());
  }

  private static Blob jdkBytes(Serializable value) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(value);
    }
    return Blob.wrap(bytes.toByteArray());
  }

  private static Object sampleOf(Class<?> type) {
    if (type.isArray()) {
      return java.lang.reflect.Array.newInstance(type.getComponentType(), 0);
    }
    if (type == BigInteger.class) {
      return BigInteger.ONE;
    }
    try {
      return type.getConstructor().newInstance();
    } catch (ReflectiveOperationException e) {
      throw new AssertionError(e);
    }
  }

  @FunctionalInterface
  interface ThrowingConsumer<T> {
    void accept(T t) throws Exception;
  }

  /** Writes only a crafted header, as a hostile peer would. */
  static final class HeaderOnlySerializer extends Serializer<Object> {
    private final Consumer<Output> header;

    HeaderOnlySerializer(Consumer<Output> header) {
      this.header = header;
    }

    @Override
    public void write(Kryo kryo, Output output, Object object) {
      header.accept(output);
    }

    @Override
    public Object read(Kryo kryo, Input input, Class<? extends Object> type) {
      throw new UnsupportedOperationException();
    }
  }
}
