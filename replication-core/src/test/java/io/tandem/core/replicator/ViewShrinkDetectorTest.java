package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ViewShrinkDetectorTest {
  /** Milliseconds; the detector reads them as its ticker's nanoseconds. */
  private final AtomicLong now = new AtomicLong(1_000);
  private final ViewShrinkDetector detector = new ViewShrinkDetector(() -> now.get() * 1_000_000, Duration.ofMillis(1500));

  @Test
  void othersRemovedOneViewAtATimeWithinMoments_isAMajorityLost() {
    assertThat(detector.lostMajority(3)).isFalse();
    now.addAndGet(20);
    assertThat(detector.lostMajority(2)).isFalse();
    now.addAndGet(20);
    assertThat(detector.lostMajority(1)).isTrue();
  }

  @Test
  void aViewLosingTwoOfThreeInOneStep_longAfterTheLastChange_isAMajorityLost() {
    detector.lostMajority(3);
    now.addAndGet(60_000);
    assertThat(detector.lostMajority(1)).isTrue();
  }

  @Test
  void aLargeViewLongCurrent_countsUntilItWasReplaced() {
    detector.lostMajority(3);
    now.addAndGet(60_000);
    assertThat(detector.lostMajority(2)).isFalse();
    now.addAndGet(1_000); // the three-member view ended a second ago, not a minute ago
    assertThat(detector.lostMajority(1)).isTrue();
  }

  @Test
  void twoFailuresSecondsApart_areNot() {
    detector.lostMajority(3);
    detector.lostMajority(2);
    now.addAndGet(4_000);
    assertThat(detector.lostMajority(1)).isFalse();
  }

  @Test
  void aTwoNodeClusterLosingOne_isNot() {
    detector.lostMajority(2);
    assertThat(detector.lostMajority(1)).isFalse();
  }

  @Test
  void halfOrMoreOfALargerView() {
    detector.lostMajority(5);
    assertThat(detector.lostMajority(3)).isFalse();
    assertThat(detector.lostMajority(2)).isTrue();
  }
}
