package io.tandem.benchmarks.replication;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class FrameSizesTest {

  @Test
  void computed_aKibibyteAttribute_isAKibibyteAndAHeaderOneWayAndAShortAckTheOther() {
    FrameSizes sizes = FrameSizes.computed(1024);
    assertThat(sizes.requestBytes()).isBetween(1024 + 15, 1024 + 200);
    assertThat(sizes.ackBytes()).isBetween(FloorFrames.MIN_FRAME_BYTES, 64);
    assertThat(sizes.source()).isEqualTo("computed");
  }

  @Test
  void value_isExactlyTheStatedLength() {
    assertThat(WriterSession.value(1024, 'a', 15)).hasSize(1024).startsWith("15:a");
    assertThat(WriterSession.value(1, 'a', 15)).hasSize(1);
  }
}
