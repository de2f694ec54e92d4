package io.tandem.core.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.core.codec.fixtures.Cart;
import io.tandem.core.codec.outside.Unlisted;
import io.tandem.core.session.Blob;
import java.io.InputStream;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Both codecs, same expectations: round trips, the class filter, the limits, and bad bytes. */
class AttributeCodecTest {
  private static final ClassLoader LOADER = AttributeCodecTest.class.getClassLoader();
  private static final CodecLimits LIMITS = new CodecLimits(64 * 1024, 50, 10_000);

  private static AttributeCodec codec(CodecKind kind, List<String> allowed) {
    return AttributeCodecs.create(kind, ClassFilter.of(allowed), LIMITS);
  }

  private static AttributeCodec codec(CodecKind kind) {
    return codec(kind, List.of("io.tandem.core.codec.fixtures.**"));
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void roundTrip_jdkValueTypesAndCollections(CodecKind kind) {
    AttributeCodec codec = codec(kind);
    Map<String, Object> nested = new LinkedHashMap<>();
    nested.put("list", new ArrayList<>(List.of(1, 2L, "three")));
    nested.put("set", new TreeSet<>(Set.of("b", "a")));
    nested.put("map", new HashMap<>(Map.of("k", new BigDecimal("1.50"))));
    List<Object> values =
        List.of("text", 42, 7L, 3.5, true, 'c', new BigDecimal("12.345"), LocalDate.of(2026, 11, 22),
            Instant.ofEpochSecond(1_700_000_000L), UUID.fromString("123e4567-e89b-12d3-a456-426614174000"),
            new byte[] {1, 2, 3}, nested, List.of("immutable", "list"), Collections.unmodifiableMap(new HashMap<>(Map.of("u", 1))));

    for (Object value : values) {
      Object decoded = codec.decode(codec.encode(value), LOADER);
      assertThat(decoded).as(value.getClass().getName()).isEqualTo(value);
    }
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void roundTrip_allowedApplicationClass_keepsSharedReferences(CodecKind kind) {
    AttributeCodec codec = codec(kind);
    Cart cart = new Cart("alice").add("book").add("pen");

    Cart decoded = (Cart) codec.decode(codec.encode(cart), LOADER);

    assertThat(decoded).isEqualTo(cart);
    assertThat(decoded.pointsToItself()).isTrue();
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void decode_classOutsideTheAllowList_failsNamingTheClass(CodecKind kind) {
    Blob bytes = codec(kind, List.of("*")).encode(new Unlisted());

    assertThatThrownBy(() -> codec(kind).decode(bytes, LOADER))
        .isInstanceOfSatisfying(ClassNotAllowedException.class,
            e -> assertThat(e.className()).isEqualTo("io.tandem.core.codec.outside.Unlisted"))
        .hasMessageContaining("io.tandem.core.codec.outside.Unlisted")
        .hasMessageContaining("allow-list");
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void decode_refusedClassNestedInAnAllowedCollection_isRefused(CodecKind kind) {
    Blob bytes = codec(kind, List.of("*")).encode(new ArrayList<>(List.of("fine", new Unlisted())));

    assertThatThrownBy(() -> codec(kind).decode(bytes, LOADER))
        .isInstanceOf(ClassNotAllowedException.class)
        .hasMessageContaining("io.tandem.core.codec.outside.Unlisted");
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void decode_denyListedClass_isRefusedEvenWithEverythingAllowed(CodecKind kind) throws Exception {
    Blob bytes = codec(kind, List.of("*")).encode(new java.net.URL("http://127.0.0.1/"));

    assertThatThrownBy(() -> codec(kind, List.of("*")).decode(bytes, LOADER))
        .isInstanceOf(ClassNotAllowedException.class)
        .hasMessageContaining("java.net.URL")
        .hasMessageContaining("deny-list");
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void decode_resolvesClassesThroughTheGivenLoader(CodecKind kind) throws Exception {
    AttributeCodec codec = codec(kind);
    Blob bytes = codec.encode(new Cart("bob").add("hat"));
    ChildFirstLoader webapp = new ChildFirstLoader(LOADER, Cart.class.getName());

    Object decoded = codec.decode(bytes, webapp);

    assertThat(decoded.getClass().getName()).isEqualTo(Cart.class.getName());
    assertThat(decoded.getClass().getClassLoader()).isSameAs(webapp);
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void encode_valueOverTheLimit_failsNamingItsClassAndSize(CodecKind kind) {
    AttributeCodec codec = codec(kind);

    assertThatThrownBy(() -> codec.encode(new byte[100 * 1024]))
        .isInstanceOf(ValueTooLargeException.class)
        .hasMessageContaining("[B")
        .hasMessageContaining("maximum of 65536 bytes");
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void decode_nestingDeeperThanTheLimit_fails(CodecKind kind) {
    AttributeCodec lenient = AttributeCodecs.create(kind, ClassFilter.defaultsOnly(), new CodecLimits(64 * 1024, 10_000, 10_000));
    List<Object> deep = new ArrayList<>();
    List<Object> cursor = deep;
    for (int i = 0; i < 200; i++) {
      List<Object> next = new ArrayList<>();
      cursor.add(next);
      cursor = next;
    }
    Blob bytes = lenient.encode(deep);

    assertThatThrownBy(() -> codec(kind).decode(bytes, LOADER)).isInstanceOf(CodecException.class);
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void decode_garbageOrTruncatedBytes_failWithCodecExceptionOnly(CodecKind kind) {
    AttributeCodec codec = codec(kind);
    byte[] valid = codec.encode(new HashMap<>(Map.of("k", List.of("v1", "v2")))).bytes();
    java.util.Random random = new java.util.Random(7);
    for (int cut = 0; cut < valid.length; cut++) {
      Blob truncated = Blob.wrap(java.util.Arrays.copyOf(valid, cut));
      assertThatThrownBy(() -> codec.decode(truncated, LOADER)).isInstanceOf(CodecException.class);
    }
    for (int i = 0; i < 500; i++) {
      byte[] mutated = valid.clone();
      mutated[random.nextInt(mutated.length)] = (byte) random.nextInt(256);
      try {
        codec.decode(Blob.wrap(mutated), LOADER);
      } catch (CodecException expected) {
        // the only failure allowed
      }
    }
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void decode_craftedHugeCollectionLength_failsFastWithoutAllocating(CodecKind kind) {
    AttributeCodec codec = codec(kind);
    byte[] valid = codec.encode(new ArrayList<>(List.of(1, 2, 3))).bytes();
    // Overwrite every byte in turn with a huge length: whichever lands on the length field must not allocate it.
    for (int i = 0; i < valid.length; i++) {
      byte[] crafted = valid.clone();
      crafted[i] = (byte) 0xff;
      byte[] longer = java.util.Arrays.copyOf(crafted, crafted.length + 4);
      System.arraycopy(crafted, i, longer, i + 4, crafted.length - i);
      longer[i] = (byte) 0xff;
      longer[i + 1] = (byte) 0xff;
      longer[i + 2] = (byte) 0xff;
      longer[i + 3] = (byte) 0x7f;
      try {
        codec.decode(Blob.wrap(longer), LOADER);
      } catch (CodecException expected) {
        // fine
      }
    }
  }

  /** A web application's loader: defines the named class itself instead of asking its parent. */
  static final class ChildFirstLoader extends ClassLoader {
    private final String childClass;

    ChildFirstLoader(ClassLoader parent, String childClass) {
      super(parent);
      this.childClass = childClass;
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      synchronized (getClassLoadingLock(name)) {
        if (!name.equals(childClass)) {
          return super.loadClass(name, resolve);
        }
        Class<?> loaded = findLoadedClass(name);
        if (loaded == null) {
          try (InputStream in = getParent().getResourceAsStream(name.replace('.', '/') + ".class")) {
            byte[] bytes = in.readAllBytes();
            loaded = defineClass(name, bytes, 0, bytes.length);
          } catch (java.io.IOException e) {
            throw new ClassNotFoundException(name, e);
          }
        }
        return loaded;
      }
    }
  }
}
