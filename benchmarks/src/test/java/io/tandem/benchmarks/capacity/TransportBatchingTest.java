package io.tandem.benchmarks.capacity;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class TransportBatchingTest {

  private static Map<String, String> figures(long sent, long acks, long frames, long writes, long callerWrites) {
    return Map.of("tandem.RequestsSent", "" + sent, "tandem.AcksReceived", "" + acks, "tandem.FramesWritten", "" + frames,
        "tandem.SocketWrites", "" + writes, "tandem.CallerWrites", "" + callerWrites);
  }

  @Test
  void ratiosOverAWindow_bothNodesTogether() {
    TransportBatching open = TransportBatching.of(figures(100, 50, 150, 140, 70));
    TransportBatching close = TransportBatching.of(figures(1_100, 300, 1_400, 640, 270));
    TransportBatching window = close.since(open).plus(close.since(open));

    assertThat(window).isEqualTo(new TransportBatching(2_000, 500, 2_500, 1_000, 400));
    assertThat(window.requestsPerAck()).isEqualTo(4.0);
    assertThat(window.framesPerWrite()).isEqualTo(2.5);
    assertThat(window.writesPerRequest()).isEqualTo(0.5);
    assertThat(window.describe())
        .isEqualTo("4.00 requests per ack, 2.50 frames per write, 0.50 writes per request, 40 % of writes by the requesting thread");
  }

  @Test
  void aManagerWithoutTandemsFigures_isUnknown_andStaysUnknownThroughTheArithmetic() {
    TransportBatching none = TransportBatching.of(Map.of("tandem.BytesReplicated", "5"));

    assertThat(none.known()).isFalse();
    assertThat(none.since(none).plus(TransportBatching.of(figures(1, 1, 1, 1, 1))).known()).isFalse();
    assertThat(none.requestsPerAck()).isEqualTo(-1);
    assertThat(none.describe()).isEqualTo("not measured");
  }

  @Test
  void aJudgedStep_carriesItsNodesTransportFigures_onlyWhenKnown() {
    NodeSnapshot tandem = new NodeSnapshot(1, 1, 0, 0, 0, new TransportBatching(10, 5, 15, 12, 3));
    NodeSnapshot other = new NodeSnapshot(1, 1, 0, 0, 0);

    assertThat(tandem.plus(tandem).transport()).isEqualTo(new TransportBatching(20, 10, 30, 24, 6));
    assertThat(tandem.plus(other).transport().known()).isFalse();
  }
}
