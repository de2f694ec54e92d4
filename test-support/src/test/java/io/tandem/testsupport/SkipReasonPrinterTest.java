package io.tandem.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SkipReasonPrinterTest {
  @Test
  void aReasonOverSeveralLinesIsPrintedAsOneLine() {
    assertThat(SkipReasonPrinter.line("io.tandem.drill.QuickDrillsIT.partition()", "  not root:\n  run as root\r\n or skip "))
        .isEqualTo("SKIPPED io.tandem.drill.QuickDrillsIT.partition(): not root: run as root or skip");
  }

  @Test
  void aSkipWithoutReasonSaysSo() {
    assertThat(SkipReasonPrinter.line("io.tandem.drill.FullDrillMatrixIT", null))
        .isEqualTo("SKIPPED io.tandem.drill.FullDrillMatrixIT: no reason given");
  }
}
