package io.tandem.core.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class ClassFilterTest {

  @Test
  void allows_builtInValueTypesWithoutConfiguration() {
    ClassFilter filter = ClassFilter.defaultsOnly();

    assertThat(filter.allows("java.lang.String")).isTrue();
    assertThat(filter.allows("java.util.HashMap")).isTrue();
    assertThat(filter.allows("java.time.LocalDate")).isTrue();
    assertThat(filter.allows("java.util.Collections$UnmodifiableList")).isTrue();
    assertThat(filter.allows("com.example.Cart")).isFalse();
  }

  @Test
  void allows_patternForms() {
    ClassFilter filter = ClassFilter.of(List.of("com.example.Cart", "com.shop.*", "org.app.**"));

    assertThat(filter.allows("com.example.Cart")).isTrue();
    assertThat(filter.allows("com.example.Carts")).isFalse();
    assertThat(filter.allows("com.shop.Item")).isTrue();
    assertThat(filter.allows("com.shop.Item$Line")).isTrue();
    assertThat(filter.allows("com.shop.sub.Item")).isFalse();
    assertThat(filter.allows("org.app.Model")).isTrue();
    assertThat(filter.allows("org.app.deep.er.Model")).isTrue();
    assertThat(filter.allows("org.apple.Model")).isFalse();
  }

  @Test
  void allows_arraysByComponentType() {
    ClassFilter filter = ClassFilter.of(List.of("com.shop.*"));

    assertThat(filter.allows("[B")).isTrue();
    assertThat(filter.allows("[[I")).isTrue();
    assertThat(filter.allows("[Ljava.lang.String;")).isTrue();
    assertThat(filter.allows("[Lcom.shop.Item;")).isTrue();
    assertThat(filter.allows("[Lcom.other.Item;")).isFalse();
    assertThat(filter.allows("com.shop.Item[]")).isTrue();
  }

  @Test
  void check_gadgetClass_isRefusedEvenWhenEverythingIsAllowed() {
    ClassFilter filter = ClassFilter.of(List.of("*", "org.apache.commons.collections.functors.**"));

    assertThat(filter.allows("com.anything.At.All")).isTrue();
    assertThatThrownBy(() -> filter.check("org.apache.commons.collections.functors.InvokerTransformer"))
        .isInstanceOfSatisfying(ClassNotAllowedException.class,
            e -> assertThat(e.className()).isEqualTo("org.apache.commons.collections.functors.InvokerTransformer"))
        .hasMessageContaining("deny-list of known deserialization gadgets");
    assertThat(filter.allows("com.sun.org.apache.xalan.internal.xsltc.trax.TemplatesImpl")).isFalse();
    assertThat(filter.allows("[Ljava.net.URL;")).isFalse();
  }

  @Test
  void check_unlistedClass_namesItAndTheSettingToChange() {
    assertThatThrownBy(() -> ClassFilter.defaultsOnly().check("com.example.Cart"))
        .isInstanceOf(ClassNotAllowedException.class)
        .hasMessageContaining("class com.example.Cart is not allowed")
        .hasMessageContaining("allowedClasses");
  }
}
