package io.tandem.core.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class ProtocolVersionsTest {
  private static ProtocolVersions range(int lowest, int highest) {
    return new ProtocolVersions(lowest, highest);
  }

  @Test
  void sharedHighest_overlappingRanges_isTheHighestBothSpeak() {
    assertThat(range(5, 5).sharedHighest(range(5, 6))).isEqualTo(OptionalInt.of(5));
    assertThat(range(5, 6).sharedHighest(range(5, 5))).isEqualTo(OptionalInt.of(5));
    assertThat(range(5, 6).sharedHighest(range(5, 6))).isEqualTo(OptionalInt.of(6));
    assertThat(range(6, 7).sharedHighest(range(5, 6))).isEqualTo(OptionalInt.of(6));
  }

  @Test
  void sharedHighest_disjointRanges_isEmptyBothWays() {
    assertThat(range(5, 5).sharedHighest(range(6, 6))).isEmpty();
    assertThat(range(6, 6).sharedHighest(range(5, 5))).isEmpty();
    assertThat(ProtocolVersions.only(4).sharedHighest(ProtocolVersions.IMPLEMENTED)).isEmpty();
  }

  @Test
  void constructor_emptyOrOutOfByteRange_isRefusedNamingTheRange() {
    assertThatThrownBy(() -> range(6, 5)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("6 to 5");
    assertThatThrownBy(() -> range(0, 5)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> range(5, 256)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("one byte");
  }

  @Test
  void spoken_withoutTheTestHook_isWhatThisCodeImplements_versions5To6() {
    // The build's surefire runs without tandem.protocol.highest.
    assertThat(ProtocolVersions.spoken()).isEqualTo(ProtocolVersions.IMPLEMENTED).isEqualTo(range(5, 6));
    assertThat(ProtocolVersions.raisedByTestHook()).isFalse();
    assertThat(ProtocolVersions.IMPLEMENTED).hasToString("5 to 6");
    assertThat(range(5, 5)).hasToString("5");
  }

  @Test
  void withTestHook_onlyTheHighestPlusOne_raisesTheHighest_keepingTheLowest() {
    assertThat(ProtocolVersions.withTestHook(null)).isEqualTo(range(5, 6));
    assertThat(ProtocolVersions.withTestHook("7")).isEqualTo(range(5, 7));
    assertThat(ProtocolVersions.withTestHook(" 7 ")).isEqualTo(range(5, 7));
  }

  @Test
  void withTestHook_anyOtherValue_isRefusedNamingTheProperty() {
    for (String value : new String[] {"8", "6", "5", "", "seven", "255"}) {
      assertThatThrownBy(() -> ProtocolVersions.withTestHook(value)).as(value).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("tandem.protocol.highest=" + value).hasMessageContaining("may only be 7");
    }
  }
}
