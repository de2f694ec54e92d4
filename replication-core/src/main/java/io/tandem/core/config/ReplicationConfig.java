package io.tandem.core.config;

import io.tandem.core.codec.CodecKind;
import io.tandem.core.codec.CodecLimits;
import io.tandem.core.codec.KryoFieldEncoding;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Every setting of the replication engine, validated once and then immutable. Build it with {@link #builder()} or
 * from {@code context.xml} attribute strings with {@link ReplicationConfigParser}; either way all violations are
 * reported together in one {@link InvalidConfigurationException}.
 *
 * @param scope what a flush sends
 * @param mode whether requests wait for the buddy's ack
 * @param ackTimeout how long a SYNC request waits for one acknowledgement from the buddy
 * @param settleTimeout SYNC: how long, after its buddy failed to acknowledge (timeout, refusal, lost connection), a
 *     request keeps re-sending the session to whichever buddy the membership view names, until one acknowledges or
 *     the view says this node is alone; past it the request is answered 503. Zero answers 503 at the first failure.
 *     Keep it above the membership's failure detection time, so that a hung buddy leaves the view within it
 * @param codec the attribute serializer
 * @param kryoFieldEncoding how the Kryo codec writes application classes' fields: compatible with older and newer
 *     versions of a class, or fast; a node reads either. Meaningless with the JDK codec, where it must be left unset
 *     (at its default)
 * @param allowedClasses class patterns (exact, {@code pkg.*}, {@code pkg.**}, or {@code *}) that may be
 *     deserialized besides the built-in safe JDK types; the built-in gadget deny-list always wins
 * @param codecLimits size, depth and collection bounds of the codec
 * @param maxFrameSize largest frame accepted from the wire, in bytes
 * @param maxSessionSize largest a session's full copy may be, in bytes as the wire carries it: a flush that would make
 *     it larger leaves out the attributes it set (they are sent as removed; SYNC answers 500), so that every copy can
 *     always be sent again in one frame after a buddy change. At most {@code maxFrameSize} minus {@link
 *     #FRAME_ENVELOPE_BYTES}; by default {@code maxFrameSize} minus a thirty-second of it (31MiB of 32MiB)
 * @param maxBackupBytes most bytes this node holds as backups of other owners' sessions: past it, as a buddy, it
 *     refuses a copy it does not hold yet and any update that would grow one it holds ({@code BACKUP_STORE_FULL});
 *     by default a quarter of the JVM's maximum heap
 * @param mutationPolicy whether reading a mutable attribute counts as a change
 * @param immutableClasses extra classes whose instances the application promises never to mutate in place
 * @param verifyMutations hash clean attributes at each flush and report in-place mutations (costly; for testing)
 * @param touchLagCap upper bound on how long a read-only request's access time may wait before it reaches the
 *     buddy; the bound actually used is the smaller of this and a quarter of the session's max inactive interval
 * @param asyncQueueCapacity most sessions with a queued update in ASYNC mode
 * @param stateTransferBytesPerSecond rate of re-protection traffic after a view change
 * @param stateTransferBatchBytes target size of one bulk transfer message
 * @param tombstoneTtl how long a buddy remembers an invalidated session id so a late update cannot revive it
 * @param orphanGrace extra idle time before a buddy drops a backup whose owner is gone
 * @param maintenanceInterval period of the maintenance tick (touch flush, orphan expiry, retries)
 * @param pauseThreshold how long this JVM may go without running (a stop-the-world pause, SIGSTOP, a frozen VM)
 *     before it must assume the cluster declared it dead and moved its sessions on; keep it below the membership's
 *     failure detection time
 */
public record ReplicationConfig(
    ReplicationScope scope,
    ReplicationMode mode,
    Duration ackTimeout,
    Duration settleTimeout,
    CodecKind codec,
    KryoFieldEncoding kryoFieldEncoding,
    List<String> allowedClasses,
    CodecLimits codecLimits,
    int maxFrameSize,
    int maxSessionSize,
    long maxBackupBytes,
    MutationPolicy mutationPolicy,
    List<String> immutableClasses,
    boolean verifyMutations,
    Duration touchLagCap,
    int asyncQueueCapacity,
    long stateTransferBytesPerSecond,
    int stateTransferBatchBytes,
    Duration tombstoneTtl,
    Duration orphanGrace,
    Duration maintenanceInterval,
    Duration pauseThreshold) {

  /**
   * Room {@code maxSessionSize} leaves in a frame for what is not the session: the frame's length and header (15
   * bytes) and a bulk transfer's purpose and count (5 bytes), with a margin.
   */
  public static final int FRAME_ENVELOPE_BYTES = 1024;
  /** Smallest {@code maxBackupBytes}: a buddy must be able to hold at least a few small sessions. */
  public static final long MIN_BACKUP_BYTES = 64 * 1024;

  public ReplicationConfig {
    List<String> violations = new ArrayList<>();
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(mode, "mode");
    Objects.requireNonNull(codec, "codec");
    Objects.requireNonNull(kryoFieldEncoding, "kryoFieldEncoding");
    Objects.requireNonNull(codecLimits, "codecLimits");
    Objects.requireNonNull(mutationPolicy, "mutationPolicy");
    allowedClasses = List.copyOf(allowedClasses);
    immutableClasses = List.copyOf(immutableClasses);
    if (codec != CodecKind.KRYO && kryoFieldEncoding != KryoFieldEncoding.COMPATIBLE) {
      violations.add("kryoFieldSerializer: '" + kryoFieldEncoding.configName() + "' applies to codec=\"kryo\" only,"
          + " and codec is \"" + codec.configName() + "\"; leave it unset");
    }
    positive(violations, "ackTimeout", ackTimeout);
    if (settleTimeout == null || settleTimeout.isNegative() || settleTimeout.compareTo(Duration.ofMinutes(1)) > 0) {
      violations.add("settleTimeout: " + (settleTimeout == null ? null : Units.format(settleTimeout))
          + " must be between 0s and 1m, such as 5s");
    }
    positive(violations, "touchLagCap", touchLagCap);
    positive(violations, "tombstoneTtl", tombstoneTtl);
    positive(violations, "maintenanceInterval", maintenanceInterval);
    positive(violations, "pauseThreshold", pauseThreshold);
    if (orphanGrace == null || orphanGrace.isNegative()) {
      violations.add("orphanGrace: " + orphanGrace + " must be zero or more");
    }
    if (maxFrameSize < 64 * 1024) {
      violations.add("maxFrameSize: " + maxFrameSize + " must be at least 64KiB");
    }
    if (maxSessionSize < 1 || maxSessionSize > maxFrameSize - FRAME_ENVELOPE_BYTES) {
      violations.add(
          "maxSessionSize: "
              + maxSessionSize
              + " must be positive and at most maxFrameSize ("
              + maxFrameSize
              + ") minus "
              + FRAME_ENVELOPE_BYTES
              + " bytes for the frame's envelope, so that a session's full copy always fits in one frame");
    }
    if (maxBackupBytes < MIN_BACKUP_BYTES) {
      violations.add("maxBackupBytes: " + maxBackupBytes + " must be at least 64KiB (" + MIN_BACKUP_BYTES + ")");
    }
    if (codecLimits.maxValueBytes() > maxFrameSize / 2) {
      violations.add(
          "maxValueSize: "
              + codecLimits.maxValueBytes()
              + " must be at most half of maxFrameSize ("
              + maxFrameSize
              + ") so that a session holding it still fits in a frame");
    }
    if (asyncQueueCapacity < 1) {
      violations.add("asyncQueueCapacity: " + asyncQueueCapacity + " must be at least 1");
    }
    if (stateTransferBytesPerSecond < 1024) {
      violations.add("stateTransferRate: " + stateTransferBytesPerSecond + " must be at least 1KiB per second");
    }
    if (stateTransferBatchBytes < 1024 || stateTransferBatchBytes > maxFrameSize / 2) {
      violations.add(
          "stateTransferBatchSize: " + stateTransferBatchBytes + " must be between 1KiB and half of maxFrameSize (" + maxFrameSize + ")");
    }
    for (String pattern : allowedClasses) {
      if (!ClassPatterns.isValid(pattern)) {
        violations.add("allowedClasses: '" + pattern + "' is not a class name, pkg.*, pkg.** or *");
      }
    }
    for (String name : immutableClasses) {
      if (!ClassPatterns.isValidClassName(name)) {
        violations.add("immutableClasses: '" + name + "' is not a class name");
      }
    }
    if (!violations.isEmpty()) {
      throw new InvalidConfigurationException(violations);
    }
  }

  private static void positive(List<String> violations, String name, Duration value) {
    if (value == null || value.isZero() || value.isNegative()) {
      violations.add(name + ": " + Units.format(value) + " must be a positive duration such as 500ms or 2s");
    }
  }

  /** The touch lag bound for a session with this max inactive interval. */
  public Duration touchLagBound(int maxInactiveIntervalSeconds) {
    if (maxInactiveIntervalSeconds <= 0) {
      return touchLagCap;
    }
    Duration quarter = Duration.ofMillis(maxInactiveIntervalSeconds * 1000L / 4);
    return quarter.compareTo(touchLagCap) < 0 ? quarter : touchLagCap;
  }

  /** The effective settings as operators write them, for the one start-up log line and JMX. */
  public Map<String, String> describe() {
    Map<String, String> out = new LinkedHashMap<>();
    out.put("scope", scope.name());
    out.put("mode", mode.name());
    out.put("ackTimeout", Units.format(ackTimeout));
    out.put("settleTimeout", Units.format(settleTimeout));
    out.put("codec", codec.configName());
    if (codec == CodecKind.KRYO) {
      out.put("kryoFieldSerializer", kryoFieldEncoding.configName());
    }
    out.put("allowedClasses", String.join(",", allowedClasses));
    out.put("maxValueSize", Integer.toString(codecLimits.maxValueBytes()));
    out.put("maxFrameSize", Integer.toString(maxFrameSize));
    out.put("maxSessionSize", Integer.toString(maxSessionSize));
    out.put("maxBackupBytes", Long.toString(maxBackupBytes));
    out.put("mutationPolicy", mutationPolicy.name());
    out.put("immutableClasses", String.join(",", immutableClasses));
    out.put("verifyMutations", Boolean.toString(verifyMutations));
    out.put("touchLagCap", Units.format(touchLagCap));
    out.put("asyncQueueCapacity", Integer.toString(asyncQueueCapacity));
    out.put("stateTransferRate", Long.toString(stateTransferBytesPerSecond));
    out.put("stateTransferBatchSize", Integer.toString(stateTransferBatchBytes));
    out.put("tombstoneTtl", Units.format(tombstoneTtl));
    out.put("orphanGrace", Units.format(orphanGrace));
    out.put("maintenanceInterval", Units.format(maintenanceInterval));
    out.put("pauseThreshold", Units.format(pauseThreshold));
    return out;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Starts from this config's values. */
  public Builder toBuilder() {
    return new Builder()
        .scope(scope)
        .mode(mode)
        .ackTimeout(ackTimeout)
        .settleTimeout(settleTimeout)
        .codec(codec)
        .kryoFieldEncoding(kryoFieldEncoding)
        .allowedClasses(allowedClasses)
        .codecLimits(codecLimits)
        .maxFrameSize(maxFrameSize)
        .maxSessionSizeOrDefault(maxSessionSize == defaultMaxSessionSize(maxFrameSize) ? null : maxSessionSize)
        .maxBackupBytes(maxBackupBytes)
        .mutationPolicy(mutationPolicy)
        .immutableClasses(immutableClasses)
        .verifyMutations(verifyMutations)
        .touchLagCap(touchLagCap)
        .asyncQueueCapacity(asyncQueueCapacity)
        .stateTransferBytesPerSecond(stateTransferBytesPerSecond)
        .stateTransferBatchBytes(stateTransferBatchBytes)
        .tombstoneTtl(tombstoneTtl)
        .orphanGrace(orphanGrace)
        .maintenanceInterval(maintenanceInterval)
        .pauseThreshold(pauseThreshold);
  }

  /**
   * {@code maxSessionSize} when it is not set: {@code maxFrameSize} less a thirty-second of it, which leaves the frame's
   * envelope (a few bytes) room to spare and keeps the default following {@code maxFrameSize} when only that is set.
   */
  public static int defaultMaxSessionSize(int maxFrameSize) {
    return maxFrameSize - maxFrameSize / 32;
  }

  /**
   * {@code maxBackupBytes} when it is not set: a quarter of the heap this JVM may grow to. A node holds its own
   * sessions live and, as a buddy, about as many bytes of copies (more after it adopts a dead owner's): a quarter
   * leaves the application the rest. See docs/tomcat.md, "Sizing the backup store".
   */
  public static long defaultMaxBackupBytes() {
    return Runtime.getRuntime().maxMemory() / 4;
  }

  /** Collects values; {@link #build()} validates them all at once. Defaults are the documented ones. */
  public static final class Builder {
    private ReplicationScope scope = ReplicationScope.MODIFIED_ATTRIBUTE;
    private ReplicationMode mode = ReplicationMode.SYNC;
    private Duration ackTimeout = Duration.ofMillis(500);
    private Duration settleTimeout = Duration.ofSeconds(5);
    private CodecKind codec = CodecKind.KRYO;
    private KryoFieldEncoding kryoFieldEncoding = KryoFieldEncoding.COMPATIBLE;
    private List<String> allowedClasses = List.of();
    private CodecLimits codecLimits = CodecLimits.defaults();
    private int maxFrameSize = 32 << 20;
    /** Null: derived from {@code maxFrameSize} at {@link #build()} ({@link #defaultMaxSessionSize}). */
    private Integer maxSessionSize;
    private long maxBackupBytes = defaultMaxBackupBytes();
    private MutationPolicy mutationPolicy = MutationPolicy.READ_MARKS_DIRTY;
    private List<String> immutableClasses = List.of();
    private boolean verifyMutations;
    private Duration touchLagCap = Duration.ofSeconds(60);
    private int asyncQueueCapacity = 10_000;
    private long stateTransferBytesPerSecond = 16L << 20;
    private int stateTransferBatchBytes = 256 << 10;
    private Duration tombstoneTtl = Duration.ofMinutes(10);
    private Duration orphanGrace = Duration.ofSeconds(30);
    private Duration maintenanceInterval = Duration.ofSeconds(1);
    private Duration pauseThreshold = Duration.ofMillis(1500);

    private Builder() {}

    public Builder scope(ReplicationScope v) { scope = v; return this; }
    public Builder mode(ReplicationMode v) { mode = v; return this; }
    public Builder ackTimeout(Duration v) { ackTimeout = v; return this; }
    public Builder settleTimeout(Duration v) { settleTimeout = v; return this; }
    public Builder codec(CodecKind v) { codec = v; return this; }
    public Builder kryoFieldEncoding(KryoFieldEncoding v) { kryoFieldEncoding = v; return this; }
    public Builder allowedClasses(List<String> v) { allowedClasses = v; return this; }
    public Builder codecLimits(CodecLimits v) { codecLimits = v; return this; }
    public Builder maxFrameSize(int v) { maxFrameSize = v; return this; }
    public Builder maxSessionSize(int v) { maxSessionSize = v; return this; }
    private Builder maxSessionSizeOrDefault(Integer v) { maxSessionSize = v; return this; }
    public Builder maxBackupBytes(long v) { maxBackupBytes = v; return this; }
    public Builder mutationPolicy(MutationPolicy v) { mutationPolicy = v; return this; }
    public Builder immutableClasses(List<String> v) { immutableClasses = v; return this; }
    public Builder verifyMutations(boolean v) { verifyMutations = v; return this; }
    public Builder touchLagCap(Duration v) { touchLagCap = v; return this; }
    public Builder asyncQueueCapacity(int v) { asyncQueueCapacity = v; return this; }
    public Builder stateTransferBytesPerSecond(long v) { stateTransferBytesPerSecond = v; return this; }
    public Builder stateTransferBatchBytes(int v) { stateTransferBatchBytes = v; return this; }
    public Builder tombstoneTtl(Duration v) { tombstoneTtl = v; return this; }
    public Builder orphanGrace(Duration v) { orphanGrace = v; return this; }
    public Builder maintenanceInterval(Duration v) { maintenanceInterval = v; return this; }
    public Builder pauseThreshold(Duration v) { pauseThreshold = v; return this; }

    public ReplicationConfig build() {
      return new ReplicationConfig(
          scope, mode, ackTimeout, settleTimeout, codec, kryoFieldEncoding, allowedClasses, codecLimits, maxFrameSize,
          maxSessionSize != null ? maxSessionSize : defaultMaxSessionSize(maxFrameSize), maxBackupBytes, mutationPolicy,
          immutableClasses, verifyMutations, touchLagCap, asyncQueueCapacity, stateTransferBytesPerSecond,
          stateTransferBatchBytes, tombstoneTtl, orphanGrace, maintenanceInterval, pauseThreshold);
    }
  }
}
