package io.tandem.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.core.codec.CodecKind;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReplicationConfigParserTest {

  @Test
  void parse_noAttributes_givesDocumentedDefaults() {
    ReplicationConfig config = ReplicationConfigParser.parse(Map.of());

    assertThat(config.scope()).isEqualTo(ReplicationScope.MODIFIED_ATTRIBUTE);
    assertThat(config.mode()).isEqualTo(ReplicationMode.SYNC);
    assertThat(config.codec()).isEqualTo(CodecKind.KRYO);
    assertThat(config.mutationPolicy()).isEqualTo(MutationPolicy.READ_MARKS_DIRTY);
    assertThat(config.ackTimeout()).isEqualTo(Duration.ofMillis(500));
  }

  @Test
  void parse_valuesWithUnits_areConverted() {
    ReplicationConfig config =
        ReplicationConfigParser.parse(
            Map.of(
                "scope", "modified-session",
                "mode", "async",
                "ackTimeout", "2s",
                "codec", "JDK",
                "allowedClasses", "com.example.**, com.shop.Cart",
                "maxValueSize", "1MiB",
                "maxFrameSize", "16MiB",
                "verifyMutations", "true",
                "touchLagCap", "250ms"));

    assertThat(config.scope()).isEqualTo(ReplicationScope.MODIFIED_SESSION);
    assertThat(config.mode()).isEqualTo(ReplicationMode.ASYNC);
    assertThat(config.ackTimeout()).isEqualTo(Duration.ofSeconds(2));
    assertThat(config.codec()).isEqualTo(CodecKind.JDK);
    assertThat(config.allowedClasses()).containsExactly("com.example.**", "com.shop.Cart");
    assertThat(config.codecLimits().maxValueBytes()).isEqualTo(1 << 20);
    assertThat(config.maxFrameSize()).isEqualTo(16 << 20);
    assertThat(config.verifyMutations()).isTrue();
    assertThat(config.touchLagCap()).isEqualTo(Duration.ofMillis(250));
  }

  @Test
  void parse_severalBadValues_reportsEveryOneNamingAttributeAndValue() {
    Map<String, String> attributes = new LinkedHashMap<>();
    attributes.put("scope", "everything");
    attributes.put("ackTimeout", "500");
    attributes.put("codec", "protobuf");
    attributes.put("asyncQueueCapacity", "0");
    attributes.put("allowedClasses", "com.example.***");
    attributes.put("colour", "blue");

    assertThatThrownBy(() -> ReplicationConfigParser.parse(attributes))
        .isInstanceOfSatisfying(
            InvalidConfigurationException.class,
            e ->
                assertThat(e.violations())
                    .hasSize(6)
                    .anySatisfy(v -> assertThat(v).startsWith("scope: 'everything'").contains("MODIFIED_ATTRIBUTE"))
                    .anySatisfy(v -> assertThat(v).startsWith("ackTimeout: '500'").contains("500ms"))
                    .anySatisfy(v -> assertThat(v).startsWith("codec: 'protobuf'").contains("kryo, jdk"))
                    .anySatisfy(v -> assertThat(v).startsWith("asyncQueueCapacity: 0"))
                    .anySatisfy(v -> assertThat(v).startsWith("allowedClasses: 'com.example.***'"))
                    .anySatisfy(v -> assertThat(v).startsWith("colour: unknown attribute")));
  }

  @Test
  void build_valueLargerThanHalfAFrame_isRefused() {
    assertThatThrownBy(() -> ReplicationConfigParser.parse(Map.of("maxValueSize", "8MiB", "maxFrameSize", "8MiB")))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("maxValueSize: 8388608 must be at most half of maxFrameSize");
  }

  @Test
  void touchLagBound_isQuarterOfMaxInactiveCappedByConfig() {
    ReplicationConfig config = ReplicationConfig.builder().touchLagCap(Duration.ofSeconds(60)).build();

    assertThat(config.touchLagBound(120)).isEqualTo(Duration.ofSeconds(30));
    assertThat(config.touchLagBound(1800)).isEqualTo(Duration.ofSeconds(60));
    assertThat(config.touchLagBound(0)).isEqualTo(Duration.ofSeconds(60));
  }

  @Test
  void describe_roundTripsThroughTheParser() {
    ReplicationConfig config =
        ReplicationConfig.builder().scope(ReplicationScope.SESSION).ackTimeout(Duration.ofMillis(1500)).build();

    assertThat(ReplicationConfigParser.parse(config.describe())).isEqualTo(config);
  }
}
