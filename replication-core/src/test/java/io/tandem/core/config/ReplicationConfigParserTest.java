package io.tandem.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.core.codec.CodecKind;
import io.tandem.core.codec.KryoFieldEncoding;
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
  void parse_kryoFieldSerializer_defaultsToCompatible_andTakesFastInAnyCase() {
    assertThat(ReplicationConfigParser.parse(Map.of()).kryoFieldEncoding()).isEqualTo(KryoFieldEncoding.COMPATIBLE);
    assertThat(ReplicationConfigParser.parse(Map.of("kryoFieldSerializer", " Fast ")).kryoFieldEncoding())
        .isEqualTo(KryoFieldEncoding.FAST);
  }

  @Test
  void parse_kryoFieldSerializerUnknown_isRefusedNamingTheAllowedValues() {
    assertThatThrownBy(() -> ReplicationConfigParser.parse(Map.of("kryoFieldSerializer", "tagged")))
        .isInstanceOfSatisfying(InvalidConfigurationException.class, e -> assertThat(e.violations())
            .containsExactly("kryoFieldSerializer: 'tagged' is not valid: unknown Kryo field serializer 'tagged':"
                + " allowed values are compatible, fast"));
  }

  @Test
  void parse_kryoFieldSerializerFastWithTheJdkCodec_isRefused() {
    assertThatThrownBy(() -> ReplicationConfigParser.parse(Map.of("codec", "jdk", "kryoFieldSerializer", "fast")))
        .isInstanceOfSatisfying(InvalidConfigurationException.class, e -> assertThat(e.violations())
            .containsExactly("kryoFieldSerializer: 'fast' applies to codec=\"kryo\" only, and codec is \"jdk\";"
                + " leave it unset"));
  }

  @Test
  void build_valueLargerThanHalfAFrame_isRefused() {
    assertThatThrownBy(() -> ReplicationConfigParser.parse(Map.of("maxValueSize", "8MiB", "maxFrameSize", "8MiB")))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("maxValueSize: 8388608 must be at most half of maxFrameSize");
  }

  @Test
  void parse_sizeLimitsUnset_sessionLimitLeavesRoomInAFrame_andBackupLimitIsAQuarterOfTheHeap() {
    ReplicationConfig config = ReplicationConfigParser.parse(Map.of());

    assertThat(config.maxSessionSize()).isEqualTo(31 << 20); // 32MiB frame less a thirty-second
    assertThat(config.maxBackupBytes()).isEqualTo(Runtime.getRuntime().maxMemory() / 4);
  }

  @Test
  void parse_onlyMaxFrameSize_sessionLimitFollowsIt() {
    ReplicationConfig config = ReplicationConfigParser.parse(Map.of("maxFrameSize", "8MiB", "maxValueSize", "1MiB"));

    assertThat(config.maxSessionSize()).isEqualTo((8 << 20) - (8 << 20) / 32);
    assertThat(config.maxSessionSize()).isLessThanOrEqualTo(config.maxFrameSize() - ReplicationConfig.FRAME_ENVELOPE_BYTES);
  }

  @Test
  void parse_sizeLimitsWithUnits_areConverted() {
    ReplicationConfig config = ReplicationConfigParser.parse(Map.of("maxSessionSize", "4MiB", "maxBackupBytes", "2GiB"));

    assertThat(config.maxSessionSize()).isEqualTo(4 << 20);
    assertThat(config.maxBackupBytes()).isEqualTo(2L << 30);
  }

  @Test
  void parse_sessionLimitNotBelowTheFrame_isRefusedNamingTheAttributeTheValueAndTheBound() {
    assertThatThrownBy(() -> ReplicationConfigParser.parse(Map.of("maxSessionSize", "32MiB")))
        .isInstanceOfSatisfying(InvalidConfigurationException.class, e -> assertThat(e.violations())
            .containsExactly("maxSessionSize: 33554432 must be positive and at most maxFrameSize (33554432) minus 1024"
                + " bytes for the frame's envelope, so that a session's full copy always fits in one frame"));
  }

  @Test
  void parse_sessionLimitJustInsideTheFrame_isAccepted_oneByteMoreIsNot() {
    int fits = (32 << 20) - ReplicationConfig.FRAME_ENVELOPE_BYTES;

    assertThat(ReplicationConfigParser.parse(Map.of("maxSessionSize", Integer.toString(fits))).maxSessionSize())
        .isEqualTo(fits);
    assertThatThrownBy(() -> ReplicationConfigParser.parse(Map.of("maxSessionSize", Integer.toString(fits + 1))))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("maxSessionSize: " + (fits + 1) + " must be positive");
  }

  @Test
  void parse_zeroAndUnparsableSizeLimits_areEachReported() {
    Map<String, String> attributes = new LinkedHashMap<>();
    attributes.put("maxSessionSize", "0");
    attributes.put("maxBackupBytes", "lots");

    assertThatThrownBy(() -> ReplicationConfigParser.parse(attributes))
        .isInstanceOfSatisfying(InvalidConfigurationException.class, e -> assertThat(e.violations())
            .hasSize(2)
            .anySatisfy(v -> assertThat(v).startsWith("maxSessionSize: 0 must be positive and at most maxFrameSize"))
            .anySatisfy(v -> assertThat(v).startsWith("maxBackupBytes: 'lots' is not valid").contains("8MiB")));
  }

  @Test
  void parse_backupLimitBelowTheMinimum_isRefusedNamingTheMinimum() {
    assertThatThrownBy(() -> ReplicationConfigParser.parse(Map.of("maxBackupBytes", "1KiB")))
        .isInstanceOfSatisfying(InvalidConfigurationException.class, e -> assertThat(e.violations())
            .containsExactly("maxBackupBytes: 1024 must be at least 64KiB (65536)"));
  }

  @Test
  void toBuilder_ofADefaultSessionLimit_followsANewFrameSize() {
    ReplicationConfig smaller = ReplicationConfig.builder().build().toBuilder().maxFrameSize(16 << 20).build();

    assertThat(smaller.maxSessionSize()).isEqualTo(ReplicationConfig.defaultMaxSessionSize(16 << 20));
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
        ReplicationConfig.builder().scope(ReplicationScope.SESSION).ackTimeout(Duration.ofMillis(1500))
            .maxSessionSize(1 << 20).maxBackupBytes(3L << 30).kryoFieldEncoding(KryoFieldEncoding.FAST).build();
    ReplicationConfig jdk = ReplicationConfig.builder().codec(CodecKind.JDK).build();

    assertThat(config.describe()).containsEntry("kryoFieldSerializer", "fast");
    assertThat(ReplicationConfigParser.parse(config.describe())).isEqualTo(config);
    assertThat(jdk.describe()).doesNotContainKey("kryoFieldSerializer");
    assertThat(ReplicationConfigParser.parse(jdk.describe())).isEqualTo(jdk);
  }
}
