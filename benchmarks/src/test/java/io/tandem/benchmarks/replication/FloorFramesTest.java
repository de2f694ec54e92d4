package io.tandem.benchmarks.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FloorFramesTest {
  private static final byte[] FILLER = new byte[2048];

  private static ByteBuffer frames(int frameBytes, int count) {
    ByteBuffer buffer = ByteBuffer.allocate(frameBytes * count);
    for (int i = 0; i < count; i++) {
      FloorFrames.write(buffer, frameBytes, i, 1000L + i, FILLER);
    }
    return buffer.flip();
  }

  @Test
  void write_anyStatedSize_framesExactlyThatManyBytesWithTheLengthCountingWhatFollows() {
    ByteBuffer one = frames(1173, 1);
    assertThat(one.remaining()).isEqualTo(1173);
    assertThat(one.getInt(0)).isEqualTo(1173 - FloorFrames.LENGTH_BYTES);
    assertThat(frames(FloorFrames.MIN_FRAME_BYTES, 1).remaining()).isEqualTo(16);
  }

  @Test
  void write_belowTheHeader_isRefused() {
    assertThatThrownBy(() -> FloorFrames.write(ByteBuffer.allocate(64), 15, 0, 1, FILLER))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("15 bytes");
  }

  @Test
  void next_severalFramesInOneRead_cutsEachWithItsWriterAndSequence() {
    ByteBuffer in = frames(31, 3);
    FloorFrames.Reader reader = new FloorFrames.Reader(31);
    List<String> seen = new ArrayList<>();
    while (reader.next(in)) {
      seen.add(reader.writer() + "/" + reader.sequence());
    }
    assertThat(seen).containsExactly("0/1000", "1/1001", "2/1002");
    assertThat(in.hasRemaining()).isFalse();
  }

  @Test
  void next_framesArrivingOneByteAtATime_cutsEveryFrameOnceAndOnlyWhenComplete() {
    ByteBuffer wire = frames(100, 4);
    ByteBuffer in = ByteBuffer.allocate(256);
    FloorFrames.Reader reader = new FloorFrames.Reader(100);
    List<Long> sequences = new ArrayList<>();
    while (wire.hasRemaining()) {
      in.put(wire.get()); // one byte per "read", then the same flip / cut / compact as the floor's loops
      in.flip();
      int before = in.position();
      while (reader.next(in)) {
        sequences.add(reader.sequence());
        before = in.position();
      }
      assertThat(in.position()).as("an incomplete frame is left untouched").isEqualTo(before);
      in.compact();
    }
    assertThat(sequences).containsExactly(1000L, 1001L, 1002L, 1003L);
    assertThat(in.position()).isZero();
  }

  @Test
  void next_lengthOverTheMaximum_throwsNamingTheLengthAndWhere() {
    ByteBuffer in = ByteBuffer.allocate(64);
    in.putInt(5000).putInt(0).putLong(1).flip();
    assertThatThrownBy(() -> new FloorFrames.Reader(1200).next(in))
        .isInstanceOf(FloorFrames.CorruptFloorFrameException.class)
        .hasMessageContaining("frame length 5000 at byte 0");
  }

  @Test
  void next_lengthBelowTheHeader_throws() {
    ByteBuffer in = ByteBuffer.allocate(64);
    in.putInt(4).putInt(0).putLong(1).flip();
    assertThatThrownBy(() -> new FloorFrames.Reader(1200).next(in))
        .isInstanceOf(FloorFrames.CorruptFloorFrameException.class);
  }

  @Test
  void next_fewerBytesThanTheLengthPrefix_waits() {
    ByteBuffer in = ByteBuffer.wrap(new byte[] {0, 0});
    assertThat(new FloorFrames.Reader(100).next(in)).isFalse();
    assertThat(in.position()).isZero();
  }
}
