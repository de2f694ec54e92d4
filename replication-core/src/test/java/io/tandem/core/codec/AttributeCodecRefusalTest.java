package io.tandem.core.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.tandem.core.session.Blob;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Where and how a codec refuses a value it cannot replicate: on the writer, naming the class and the reason. */
class AttributeCodecRefusalTest {
  private static final String OWN = AttributeCodecRefusalTest.class.getName();
  private static final ClassFilter HOLDER_ONLY =
      ClassFilter.of(List.of(OWN + "$Holder", OWN + "$Kind", OWN + "$WithBody"));
  private static final ClassLoader LOADER = AttributeCodecRefusalTest.class.getClassLoader();

  private static AttributeCodec codec(CodecKind kind, ClassFilter filter) {
    return AttributeCodecs.create(kind, filter, CodecLimits.defaults());
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void encode_finalFieldOfRefusedClass_isRefusedOnTheWriter(CodecKind kind) {
    // Kryo names no class for a final field type; only the reader checked it, at takeover.
    Holder value = new Holder(new Refused("secret"), null);

    Throwable t = catchThrowable(() -> codec(kind, HOLDER_ONLY).encode(value));

    assertThat(t).isInstanceOf(ClassNotAllowedException.class);
    ClassNotAllowedException refused = (ClassNotAllowedException) t;
    assertThat(refused.className()).isEqualTo(Refused.class.getName());
    assertThat(refused.direction()).isEqualTo(CodecDirection.SERIALIZING);
    assertThat(refused.reason()).isEqualTo(ClassFilter.NOT_ALLOWED);
    assertThat(refused).hasMessageContaining("cannot serialize").hasMessageNotContaining("deserialize");
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void encode_finalElementTypeOfRefusedClass_isRefusedOnTheWriter(CodecKind kind) {
    // List<Refused> with Refused final: Kryo names the list's class but not its elements' class.
    ListHolder value = new ListHolder(new ArrayList<>(List.of(new Refused("a"))));
    ClassFilter listHolderOnly = ClassFilter.of(List.of(OWN + "$ListHolder"));

    assertThatThrownBy(() -> codec(kind, listHolderOnly).encode(value))
        .isInstanceOf(ClassNotAllowedException.class)
        .extracting(e -> ((ClassNotAllowedException) e).className())
        .isEqualTo(Refused.class.getName());
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void encode_arrayOfRefusedClass_namesTheComponentClass(CodecKind kind) {
    Holder value = new Holder(null, "x");
    value.any = new Refused[] {new Refused("a")};

    assertThatThrownBy(() -> codec(kind, HOLDER_ONLY).encode(value))
        .isInstanceOf(ClassNotAllowedException.class)
        .extracting(e -> ((ClassNotAllowedException) e).className())
        .isEqualTo(Refused.class.getName());
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void decode_nullFinalFieldOfRefusedClass_isAccepted(CodecKind kind) {
    // The writer has no object, so no class, to check; the reader refused the declared type regardless.
    AttributeCodec codec = codec(kind, HOLDER_ONLY);
    Holder value = new Holder(null, "x");

    Object decoded = codec.decode(codec.encode(value), LOADER);

    assertThat(decoded).isEqualTo(value);
  }

  @Test
  void encode_refusedThrowableInsideValue_isRefusedOnTheWriter() {
    // The JDK writer skipped every Throwable's class, so a stored exception was refused only by the reader.
    Holder value = new Holder(null, "x");
    value.any = new RefusedFailure("boom");

    assertThatThrownBy(() -> codec(CodecKind.JDK, HOLDER_ONLY).encode(value))
        .isInstanceOf(ClassNotAllowedException.class)
        .hasMessageContaining("cannot serialize")
        .extracting(e -> ((ClassNotAllowedException) e).className())
        .isEqualTo(RefusedFailure.class.getName());
  }

  @Test
  void encode_notSerializableUnderRestrictiveFilter_namesTheNotSerializableClass() {
    // ObjectOutputStream writes its own NotSerializableException into the stream; the filter then refused the
    // exception's classes and reported one of those instead of the value's real problem.
    Holder value = new Holder(null, "x");
    value.any = new NotSerializable();
    ClassFilter filter = ClassFilter.of(List.of(OWN + "$Holder", OWN + "$NotSerializable"));

    Throwable t = catchThrowable(() -> codec(CodecKind.JDK, filter).encode(value));

    assertThat(t).isExactlyInstanceOf(ClassNotSerializableException.class);
    assertThat(((ClassNotSerializableException) t).className()).isEqualTo(NotSerializable.class.getName());
    assertThat(t).hasMessageContaining("cannot serialize").hasMessageContaining("java.io.Serializable");
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void encode_lambda_isRefusedOnTheWriter(CodecKind kind) {
    // A lambda's class is hidden: even with '*' no peer can load it, so Kryo's output failed at takeover.
    Supplier<String> lambda = (Supplier<String> & Serializable) () -> "x";
    Holder value = new Holder(null, "x");
    value.any = lambda;

    Throwable t = catchThrowable(() -> codec(kind, ClassFilter.of(List.of("*"))).encode(value));

    assertThat(t).isInstanceOf(ClassNotAllowedException.class).hasMessageContaining("cannot serialize");
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void encode_refusedClassInsideJdkWrapper_isRefusedOnTheWriter(CodecKind kind) {
    Object value = Collections.unmodifiableList(new ArrayList<>(List.of(new Refused("x"))));

    assertThatThrownBy(() -> codec(kind, HOLDER_ONLY).encode(value))
        .isInstanceOf(ClassNotAllowedException.class)
        .extracting(e -> ((ClassNotAllowedException) e).direction())
        .isEqualTo(CodecDirection.SERIALIZING);
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void decode_refusedClass_saysDeserializingAndNamesTheClass(CodecKind kind) {
    Blob bytes = codec(kind, ClassFilter.of(List.of("*"))).encode(new Refused("x"));

    Throwable t = catchThrowable(() -> codec(kind, HOLDER_ONLY).decode(bytes, LOADER));

    assertThat(t).isInstanceOf(ClassNotAllowedException.class).hasMessageContaining("deserialize");
    ClassNotAllowedException refused = (ClassNotAllowedException) t;
    assertThat(refused.direction()).isEqualTo(CodecDirection.DESERIALIZING);
    assertThat(refused.className()).isEqualTo(Refused.class.getName());
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void encode_enumConstantWithBody_isJudgedAsItsEnum(CodecKind kind) {
    AttributeCodec codec = codec(kind, HOLDER_ONLY);

    assertThat(codec.refusalOf(WithBody.SPECIAL)).isEmpty();
    assertThat(codec.decode(codec.encode(WithBody.SPECIAL), LOADER)).isSameAs(WithBody.SPECIAL);
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void encode_overMaxValueSize_reportsDirectionSizeAndLimit(CodecKind kind) {
    AttributeCodec small = AttributeCodecs.create(kind, HOLDER_ONLY, new CodecLimits(1024, 200, 1000));

    Throwable t = catchThrowable(() -> small.encode("x".repeat(3000)));

    assertThat(t).isInstanceOf(ValueTooLargeException.class);
    ValueTooLargeException tooLarge = (ValueTooLargeException) t;
    assertThat(tooLarge.direction()).isEqualTo(CodecDirection.SERIALIZING);
    assertThat(tooLarge.className()).isEqualTo("java.lang.String");
    assertThat(tooLarge.maxBytes()).isEqualTo(1024);
    assertThat(tooLarge.size()).isGreaterThan(1024);
    assertThat(tooLarge).hasMessageContaining("cannot serialize").hasMessageContaining("maxValueSize");
  }

  @Test
  void encode_jdkWrapperOverMaxValueSize_namesTheValueNotTheWrapperInside() {
    // Kryo writes unmodifiable wrappers through an embedded JDK stream, whose own overflow named the wrapper.
    AttributeCodec small = AttributeCodecs.create(CodecKind.KRYO, HOLDER_ONLY, new CodecLimits(1024, 200, 1000));
    List<Object> value = new ArrayList<>();
    value.add(Collections.unmodifiableList(new ArrayList<>(List.of("z".repeat(1500)))));

    Throwable t = catchThrowable(() -> small.encode(value));

    assertThat(t).isInstanceOf(ValueTooLargeException.class);
    assertThat(((ValueTooLargeException) t).className()).isEqualTo(ArrayList.class.getName());
    assertThat(((ValueTooLargeException) t).size()).isGreaterThan(1500);
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void refusalOf_refusedTopLevelClass_namesClassAndReason(CodecKind kind) {
    AttributeCodec codec = codec(kind, HOLDER_ONLY);

    assertThat(codec.refusalOf(new Refused("x")))
        .hasValue("class " + Refused.class.getName() + " is " + ClassFilter.NOT_ALLOWED);
    assertThat(codec.refusalOf(new Refused[0])).isPresent();
    assertThat(codec.refusalOf(new Holder(null, "x"))).isEmpty();
    assertThat(codec.refusalOf(new Holder[0][0])).isEmpty();
    assertThat(codec.refusalOf("text")).isEmpty();
    assertThat(codec.refusalOf(new int[1])).isEmpty();
  }

  @Test
  void refusalOf_notSerializable_refusedByJdkOnly() {
    ClassFilter all = ClassFilter.of(List.of("*"));

    assertThat(codec(CodecKind.JDK, all).refusalOf(new NotSerializable()))
        .hasValueSatisfying(why -> assertThat(why).contains(NotSerializable.class.getName(), "Serializable"));
    assertThat(codec(CodecKind.KRYO, all).refusalOf(new NotSerializable())).isEmpty();
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void refusalOf_refusal_impliesEncodeRefuses(CodecKind kind) {
    ClassFilter all = ClassFilter.of(List.of("*"));
    List<Object> refusedAtTopLevel =
        List.of(new Refused("x"), new Refused[] {new Refused("y")}, new NotSerializable());
    for (Object value : refusedAtTopLevel) {
      for (ClassFilter filter : List.of(HOLDER_ONLY, all)) {
        AttributeCodec codec = codec(kind, filter);
        if (codec.refusalOf(value).isPresent()) {
          assertThatThrownBy(() -> codec.encode(value)).as("%s %s", value, filter).isInstanceOf(CodecException.class);
        }
      }
    }
  }

  @Test
  void refusalOf_denyListedClass_isRefusedEvenWithStar() throws Exception {
    ClassFilter all = ClassFilter.of(List.of("*"));

    assertThat(all.refusalOf(java.net.URL.class)).hasValue(ClassFilter.DENIED);
    assertThat(all.refusalOf(Thread.class)).hasValue(ClassFilter.DENIED);
  }

  @Test
  void refusalOf_sameClassTwice_answersFromTheCache() {
    assertThat(HOLDER_ONLY.refusalOf(Refused.class)).isSameAs(HOLDER_ONLY.refusalOf(Refused.class));
  }

  /** Allowed by {@link #HOLDER_ONLY}; its final field types are final classes, so Kryo does not name them. */
  static final class Holder implements Serializable {
    private static final long serialVersionUID = 1L;
    final Refused refused;
    final String label;
    Object any;

    Holder(Refused refused, String label) {
      this.refused = refused;
      this.label = label;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Holder h
          && Objects.equals(refused, h.refused)
          && Objects.equals(label, h.label)
          && Objects.equals(any, h.any);
    }

    @Override
    public int hashCode() {
      return Objects.hash(refused, label);
    }
  }

  /** A final field whose declared element type is a final class. */
  static final class ListHolder implements Serializable {
    private static final long serialVersionUID = 1L;
    final List<Refused> items;

    ListHolder(List<Refused> items) {
      this.items = items;
    }
  }

  /** Not allowed by {@link #HOLDER_ONLY}. */
  static final class Refused implements Serializable {
    private static final long serialVersionUID = 1L;
    final String value;

    Refused(String value) {
      this.value = value;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Refused r && r.value.equals(value);
    }

    @Override
    public int hashCode() {
      return value.hashCode();
    }
  }

  /** An application exception class that is not allowed. */
  static final class RefusedFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    RefusedFailure(String message) {
      super(message);
    }
  }

  static final class NotSerializable {
    final int x = 1;
  }

  enum WithBody {
    PLAIN,
    SPECIAL {
      @Override
      String label() {
        return "special";
      }
    };

    String label() {
      return name();
    }
  }

  enum Kind {
    A
  }
}
