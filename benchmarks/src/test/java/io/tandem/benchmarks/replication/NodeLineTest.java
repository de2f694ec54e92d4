package io.tandem.benchmarks.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class NodeLineTest {

  @Test
  void parse_aMarkPrintedByANode_readsBackTheSameMark() {
    Mark mark = new Mark(123_456_789L, 42_000_000L, 777);
    NodeLine line = NodeLine.parse(NodeLine.of(mark).toString());
    assertThat(line.word()).isEqualTo("MARK");
    assertThat(line.mark()).isEqualTo(mark);
  }

  @Test
  void answer_carriesThePrefixTheMainFiltersOn() {
    assertThat(NodeLine.of("STARTED").answer()).isEqualTo("@tandem-bench STARTED");
  }

  @Test
  void parse_wordAlone_hasNoFields() {
    assertThat(NodeLine.parse("READY\n")).isEqualTo(new NodeLine("READY", Map.of()));
  }

  @Test
  void parse_notKeyValue_throwsQuotingTheLine() {
    assertThatThrownBy(() -> NodeLine.parse("MARK updates")).hasMessageContaining("not key=value: 'updates'");
    assertThatThrownBy(() -> NodeLine.parse("MARK a=1 a=2")).hasMessageContaining("field 'a' twice");
  }

  @Test
  void number_missingOrNotANumber_throwsNamingTheField() {
    NodeLine line = NodeLine.parse("STOPPED requestFrameBytes=x");
    assertThatThrownBy(() -> line.number("requestFrameBytes")).hasMessageContaining("'requestFrameBytes' is not a number");
    assertThatThrownBy(() -> line.number("ackFrameBytes")).hasMessageContaining("no field 'ackFrameBytes'");
  }
}
