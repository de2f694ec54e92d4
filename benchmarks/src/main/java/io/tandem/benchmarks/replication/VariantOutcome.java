package io.tandem.benchmarks.replication;

/**
 * One variant's result as reported ({@code results.json}); figures are null where they could not be computed.
 *
 * @param variant the variant's label
 * @param failure why the variant has no figures (or they are suspect), null when it ran cleanly
 * @param updatesPerSecond acknowledged updates per second at the owner
 * @param ownerMicrosPerUpdate owner process CPU per acknowledged update
 * @param buddyMicrosPerUpdate buddy process CPU per handled update
 * @param pairMicrosPerUpdate the two added
 * @param ownerCores the owner's average CPU over its window
 * @param buddyCores the buddy's
 * @param ownerUpdates acknowledged updates in the owner's window
 * @param buddyUpdates requests handled in the buddy's window
 * @param windowMillis the owner's window as measured by its clock
 * @param failedUpdates updates that did not end acknowledged (Tandem: flush outcomes other than REPLICATED) in the
 *     window
 * @param otherOutcomes Tandem: the flush outcomes other than REPLICATED over the whole run ({@code none})
 * @param ownerThrottledPeriods CFS periods in which the owner's group ran out of quota during the window; -1 without
 *     a cgroup
 * @param buddyThrottledPeriods the same for the buddy
 * @param overCeiling taskset fallback only: a process averaged more than the cap
 * @param logs the directory of the two processes' logs
 */
record VariantOutcome(String variant, String failure, Double updatesPerSecond, Double ownerMicrosPerUpdate,
    Double buddyMicrosPerUpdate, Double pairMicrosPerUpdate, Double ownerCores, Double buddyCores, long ownerUpdates,
    long buddyUpdates, long windowMillis, long failedUpdates, String otherOutcomes, long ownerThrottledPeriods,
    long buddyThrottledPeriods, boolean overCeiling, String logs) {

  static VariantOutcome failed(Variant variant, String failure, String logs) {
    return new VariantOutcome(variant.label(), failure, null, null, null, null, null, null, 0, 0, 0, 0, "none", -1, -1,
        false, logs);
  }

  boolean measured() {
    return updatesPerSecond != null && ownerMicrosPerUpdate != null && buddyMicrosPerUpdate != null;
  }

  VariantFigures figures() {
    return new VariantFigures(updatesPerSecond, ownerMicrosPerUpdate, buddyMicrosPerUpdate, ownerCores, buddyCores);
  }

  /** A finite double, or null (JSON has no NaN). */
  static Double finite(double value) {
    return Double.isFinite(value) ? value : null;
  }
}
