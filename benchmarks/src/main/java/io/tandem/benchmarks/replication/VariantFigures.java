package io.tandem.benchmarks.replication;

/**
 * The figures of one variant, from the owner's and the buddy's windows. Throughput is the owner's (updates it saw
 * acknowledged per second); CPU per update is each process's own CPU over its own count.
 *
 * @param updatesPerSecond acknowledged updates per second, at the owner
 * @param ownerMicrosPerUpdate the owner process's CPU per acknowledged update
 * @param buddyMicrosPerUpdate the buddy process's CPU per update it handled
 * @param ownerCores the owner's average CPU use over its window
 * @param buddyCores the buddy's
 */
record VariantFigures(double updatesPerSecond, double ownerMicrosPerUpdate, double buddyMicrosPerUpdate,
    double ownerCores, double buddyCores) {

  static VariantFigures of(ProcessWindow owner, ProcessWindow buddy) {
    return new VariantFigures(owner.updatesPerSecond(), owner.cpuMicrosPerUpdate(), buddy.cpuMicrosPerUpdate(),
        owner.cores(), buddy.cores());
  }

  /** Both processes' CPU per update: what one replicated update costs the pair. */
  double pairMicrosPerUpdate() {
    return ownerMicrosPerUpdate + buddyMicrosPerUpdate;
  }

  /**
   * {@code this}'s CPU per update over {@code floor}'s, for the pair; NaN where either has no updates or the floor
   * used no measurable CPU.
   */
  double ratioTo(VariantFigures floor) {
    return ratio(pairMicrosPerUpdate(), floor.pairMicrosPerUpdate());
  }

  double ownerRatioTo(VariantFigures floor) {
    return ratio(ownerMicrosPerUpdate, floor.ownerMicrosPerUpdate);
  }

  double buddyRatioTo(VariantFigures floor) {
    return ratio(buddyMicrosPerUpdate, floor.buddyMicrosPerUpdate);
  }

  private static double ratio(double numerator, double denominator) {
    if (Double.isNaN(numerator) || Double.isNaN(denominator) || denominator <= 0) {
      return Double.NaN;
    }
    return numerator / denominator;
  }
}
