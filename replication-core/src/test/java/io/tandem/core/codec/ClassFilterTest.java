package io.tandem.core.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ClassFilterTest {

  @Test
  void baseSetIsAlwaysAllowed() {
    ClassFilter f = ClassFilter.defaultsOnly();
    assertThat(f.allows("java.lang.String")).isTrue();
    assertThat(f.allows("java.lang.Integer")).isTrue();
    assertThat(f.allows("java.math.BigDecimal")).isTrue();
    assertThat(f.allows("java.time.LocalDate")).isTrue();
    assertThat(f.allows("java.time.zone.ZoneRules")).isTrue();
    assertThat(f.allows("java.util.HashMap")).isTrue();
    assertThat(f.allows("java.util.ImmutableCollections$ListN")).isTrue();
    assertThat(f.allows("java.util.Collections$UnmodifiableRandomAccessList")).isTrue();
    assertThat(f.allows("java.util.UUID")).isTrue();
    assertThat(f.allows("int")).isTrue();
    assertThat(f.allows("com.example.Cart")).isFalse();
    assertThat(f.allows("java.util.PriorityQueue")).isFalse();
    assertThat(f.patterns()).isEmpty();
  }

  @Test
  void exactPattern() {
    ClassFilter f = ClassFilter.of(List.of("com.example.Cart"));
    assertThat(f.allows("com.example.Cart")).isTrue();
    assertThat(f.allows("com.example.Cart$Line")).isFalse();
    assertThat(f.allows("com.example.CartX")).isFalse();
    assertThat(f.allows("com.example.other.Cart")).isFalse();
  }

  @Test
  void singleStarMatchesDirectPackageOnly() {
    ClassFilter f = ClassFilter.of(List.of("com.example.*"));
    assertThat(f.allows("com.example.Cart")).isTrue();
    assertThat(f.allows("com.example.Cart$Line")).isTrue();
    assertThat(f.allows("com.example.sub.Cart")).isFalse();
    assertThat(f.allows("com.examples.Cart")).isFalse();
  }

  @Test
  void doubleStarMatchesSubpackages() {
    ClassFilter f = ClassFilter.of(List.of("com.example.**"));
    assertThat(f.allows("com.example.Cart")).isTrue();
    assertThat(f.allows("com.example.sub.deep.Cart")).isTrue();
    assertThat(f.allows("com.examples.Cart")).isFalse();
  }

  @Test
  void starAllowsEverythingButTheDenyList() {
    ClassFilter f = ClassFilter.of(List.of("*"));
    assertThat(f.allows("com.anything.At.All")).isTrue();
    assertThat(f.allows("java.net.URL")).isFalse();
    assertThat(f.allows("org.apache.commons.collections.functors.InvokerTransformer")).isFalse();
    assertThat(f.allows("com.sun.org.apache.xalan.internal.xsltc.trax.TemplatesImpl")).isFalse();
    assertThat(f.allows("javax.management.BadAttributeValueExpException")).isFalse();
    assertThat(f.allows("java.lang.reflect.Proxy")).isFalse();
  }

  @Test
  void denyListBeatsExplicitPatterns() {
    ClassFilter f = ClassFilter.of(List.of("org.apache.commons.**", "java.net.URL"));
    assertThat(f.allows("org.apache.commons.lang3.StringUtils")).isTrue();
    assertThat(f.allows("org.apache.commons.collections4.functors.ChainedTransformer")).isFalse();
    assertThat(f.allows("org.apache.commons.beanutils.BeanComparator")).isFalse();
    assertThat(f.allows("java.net.URL")).isFalse();
  }

  @Test
  void arraysFollowTheirComponentType() {
    ClassFilter f = ClassFilter.of(List.of("com.example.*"));
    assertThat(f.allows("[I")).isTrue();
    assertThat(f.allows("[[J")).isTrue();
    assertThat(f.allows("[Ljava.lang.String;")).isTrue();
    assertThat(f.allows("[[Lcom.example.Cart;")).isTrue();
    assertThat(f.allows("com.example.Cart[]")).isTrue();
    assertThat(f.allows("[Lcom.other.Cart;")).isFalse();
    assertThat(f.allows("[Ljava.net.URL;")).isFalse();
    assertThat(f.allows("java.net.URL[][]")).isFalse();
    assertThat(f.allows("[X")).isFalse();
    assertThat(f.allows("[Lbroken")).isFalse();
  }

  @Test
  void checkNamesClassAndReason() {
    ClassFilter f = ClassFilter.defaultsOnly();
    assertThatThrownBy(() -> f.check("com.example.Cart"))
        .isInstanceOf(ClassNotAllowedException.class)
        .hasMessageContaining("com.example.Cart")
        .hasMessageContaining("not on the allow-list (tandem allowedClasses)");
    assertThatThrownBy(() -> ClassFilter.of(List.of("*")).check("java.net.URL"))
        .isInstanceOf(ClassNotAllowedException.class)
        .hasMessageContaining("java.net.URL")
        .hasMessageContaining("deny-list of known deserialization gadgets")
        .extracting(e -> ((ClassNotAllowedException) e).className())
        .isEqualTo("java.net.URL");
  }

  @Test
  void refusalOf_collectionsAddedToTheBaseSet_areAllowed() {
    ClassFilter f = ClassFilter.defaultsOnly();
    for (Class<?> type :
        List.of(
            StringBuilder.class,
            StringBuffer.class,
            java.util.Vector.class,
            java.util.Stack.class,
            java.util.Hashtable.class,
            java.util.IdentityHashMap.class,
            java.util.EnumMap.class,
            java.util.concurrent.ConcurrentSkipListMap.class,
            java.util.concurrent.ConcurrentSkipListSet.class,
            java.util.concurrent.CopyOnWriteArrayList.class,
            java.util.concurrent.CopyOnWriteArraySet.class,
            java.util.Collections.nCopies(2, "x").getClass())) {
      assertThat(f.refusalOf(type)).as(type.getName()).isEmpty();
    }
    assertThat(f.refusalOf(java.util.PriorityQueue.class)).hasValue(ClassFilter.NOT_ALLOWED);
  }

  @Test
  void refusalOf_hiddenAndProxyClasses_areRefusedEvenWithStar() {
    ClassFilter f = ClassFilter.of(List.of("*"));
    Runnable lambda = () -> {};
    Object proxy =
        java.lang.reflect.Proxy.newProxyInstance(
            getClass().getClassLoader(), new Class<?>[] {Runnable.class}, (p, m, a) -> null);

    assertThat(f.refusalOf(lambda.getClass())).hasValue(ClassFilter.HIDDEN);
    assertThat(f.refusalOf(proxy.getClass())).hasValue(ClassFilter.PROXY);
    assertThat(f.refusalOf(int[][].class)).isEmpty();
    assertThat(f.refusalOf(java.net.URL[].class)).hasValue(ClassFilter.DENIED);
  }

  @Test
  void check_refusal_saysDeserializing() {
    assertThatThrownBy(() -> ClassFilter.defaultsOnly().check("com.example.Cart"))
        .isInstanceOf(ClassNotAllowedException.class)
        .hasMessageContaining("deserialize")
        .extracting(e -> ((ClassNotAllowedException) e).direction())
        .isEqualTo(CodecDirection.DESERIALIZING);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", " ", "com..x", "com.*.x", "**", "com.example.***", "1abc.X", "a b"})
  void malformedPatternsAreRejected(String pattern) {
    assertThatThrownBy(() -> ClassFilter.of(List.of(pattern)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("allowedClasses pattern");
  }

  @Test
  void patternsAreTrimmedAndDeduplicated() {
    assertThat(ClassFilter.of(List.of(" com.a.* ", "com.a.*", "com.b.C")).patterns())
        .containsExactly("com.a.*", "com.b.C");
  }

  @Test
  void codecKindParsing() {
    assertThat(CodecKind.parse("kryo")).isEqualTo(CodecKind.KRYO);
    assertThat(CodecKind.parse(" JDK ")).isEqualTo(CodecKind.JDK);
    assertThatThrownBy(() -> CodecKind.parse("json"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("kryo, jdk");
    assertThatThrownBy(() -> CodecKind.parse(null)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void limitsValidation() {
    assertThat(CodecLimits.defaults()).isEqualTo(new CodecLimits(8 * 1024 * 1024, 200, 1_000_000));
    assertThatThrownBy(() -> new CodecLimits(0, 10, 10)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new CodecLimits(1024, 0, 10)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new CodecLimits(1024, 10, -1)).isInstanceOf(IllegalArgumentException.class);
  }
}
