package io.tandem.benchmarks.capacity;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * Whose Java code a node ran, from the execution samples of a JFR recording ({@code ./tandem bench --jfr}): per thread
 * group ({@link ThreadGroups}), how many samples there were and how many were Tandem's, and which methods were on top
 * most often. A sample is Tandem's when it was taken on one of Tandem's own threads (its transport's or its engine's),
 * or when the first frame from the top that is neither the JDK's nor a library's Tandem shades ({@code
 * io.tandem.shaded}) is one of Tandem's own classes: Kryo or a hash map called by the codec counts as Tandem's, the
 * page a request runs does not, though Tandem's valve is further down every request's stack.
 *
 * <p>A sample is taken of a thread running Java code; what a thread does in the kernel (a futex wait or wake, a read,
 * epoll) is not sampled. So the shares here are shares of the node's Java time; {@code ThreadCpu}'s per-thread table,
 * from {@code /proc}, gives each group's whole CPU and its kernel share, and the two together say how much of the node's
 * CPU Tandem's code takes.
 *
 * @param groups per thread group, in {@link ThreadGroups#ORDER}
 * @param topFrames the methods most often on top of a sample, with their sample counts, most first
 * @param topTandemFrames the same, of Tandem's samples
 * @param topTandemCallers Tandem's own methods that made a sample Tandem's (the first own frame from the top), most
 *     first: where in Tandem the time goes, whatever JDK or library code it was spent in
 */
record FrameShares(Map<String, GroupSamples> groups, List<Map.Entry<String, Long>> topFrames,
    List<Map.Entry<String, Long>> topTandemFrames, List<Map.Entry<String, Long>> topTandemCallers) {

  /** @param tandem the group's samples that were Tandem's */
  record GroupSamples(long samples, long tandem) {
    double tandemShare() {
      return samples == 0 ? 0 : (double) tandem / samples;
    }
  }

  private static final int TOP = 15;

  /** Reads {@code recording}, counting only samples within [{@code from}, {@code to}) (null: unbounded). */
  static FrameShares of(Path recording, Instant from, Instant to) throws IOException {
    Map<String, long[]> groups = new LinkedHashMap<>();
    ThreadGroups.ORDER.forEach(g -> groups.put(g, new long[2]));
    Map<String, Long> top = new HashMap<>();
    Map<String, Long> topTandem = new HashMap<>();
    Map<String, Long> callers = new HashMap<>();
    try (RecordingFile file = new RecordingFile(recording)) {
      while (file.hasMoreEvents()) {
        RecordedEvent event = file.readEvent();
        if (!event.getEventType().getName().equals("jdk.ExecutionSample")) {
          continue;
        }
        Instant at = event.getStartTime();
        if (from != null && at.isBefore(from) || to != null && !at.isBefore(to)) {
          continue;
        }
        RecordedThread thread = event.getThread("sampledThread");
        String name = thread == null || thread.getJavaName() == null ? "" : thread.getJavaName();
        RecordedStackTrace stack = event.getStackTrace();
        List<RecordedFrame> frames = stack == null ? List.of() : stack.getFrames();
        String group = ThreadGroups.of(name);
        RecordedFrame deciding = firstOwnFrame(frames);
        boolean tandem = group.equals(ThreadGroups.TANDEM_TRANSPORT) || group.equals(ThreadGroups.TANDEM_ENGINE)
            || deciding != null && isTandemClass(deciding.getMethod().getType().getName());
        long[] counts = groups.get(group);
        counts[0]++;
        String onTop = frames.isEmpty() ? "(no stack)" : method(frames.get(0));
        top.merge(onTop, 1L, Long::sum);
        if (tandem) {
          counts[1]++;
          topTandem.merge(onTop, 1L, Long::sum);
          callers.merge(deciding == null ? "(no own frame: " + group + ")" : method(deciding), 1L, Long::sum);
        }
      }
    }
    Map<String, GroupSamples> result = new LinkedHashMap<>();
    groups.forEach((group, counts) -> result.put(group, new GroupSamples(counts[0], counts[1])));
    return new FrameShares(result, mostFirst(top), mostFirst(topTandem), mostFirst(callers));
  }

  /** Every group together. */
  GroupSamples all() {
    return new GroupSamples(groups.values().stream().mapToLong(GroupSamples::samples).sum(),
        groups.values().stream().mapToLong(GroupSamples::tandem).sum());
  }

  /** The first frame from the top that is neither the JDK's nor a shaded library's; null when there is none. */
  private static RecordedFrame firstOwnFrame(List<RecordedFrame> frames) {
    for (RecordedFrame frame : frames) {
      if (frame.getMethod() != null && frame.getMethod().getType() != null
          && !isCalledCode(frame.getMethod().getType().getName())) {
        return frame;
      }
    }
    return null;
  }

  /** The JDK's classes and the libraries Tandem shades: code that works for whoever called it. */
  static boolean isCalledCode(String className) {
    return className.startsWith("java.") || className.startsWith("javax.") || className.startsWith("jdk.")
        || className.startsWith("sun.") || className.startsWith("com.sun.") || className.startsWith("io.tandem.shaded.");
  }

  /** One of Tandem's own classes: {@code io.tandem}, but not a shaded library nor the benchmark itself. */
  static boolean isTandemClass(String className) {
    return className.startsWith("io.tandem.") && !className.startsWith("io.tandem.shaded.")
        && !className.startsWith("io.tandem.benchmarks.");
  }

  private static String method(RecordedFrame frame) {
    return frame.getMethod() == null ? "(unknown)"
        : frame.getMethod().getType().getName() + "." + frame.getMethod().getName();
  }

  private static List<Map.Entry<String, Long>> mostFirst(Map<String, Long> counts) {
    return counts.entrySet().stream()
        .sorted(Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder()).thenComparing(Map.Entry.comparingByKey()))
        .limit(TOP).map(e -> Map.entry(e.getKey(), e.getValue())).toList();
  }

  /** The report, as plain text lines. */
  String describe() {
    StringBuilder out = new StringBuilder();
    GroupSamples all = all();
    out.append(String.format("%-24s %9s %9s %7s%n", "thread group", "samples", "tandem", "share"));
    groups.forEach((group, samples) -> {
      if (samples.samples() > 0) {
        out.append(String.format("%-24s %9d %9d %6.1f%%%n", group, samples.samples(), samples.tandem(),
            100 * samples.tandemShare()));
      }
    });
    out.append(String.format("%-24s %9d %9d %6.1f%%%n", "all threads", all.samples(), all.tandem(),
        100 * all.tandemShare()));
    out.append(System.lineSeparator()).append("on top of every sample:").append(System.lineSeparator());
    topFrames.forEach(e -> out.append(String.format("  %6d  %s%n", e.getValue(), e.getKey())));
    out.append(System.lineSeparator()).append("on top of Tandem's samples:").append(System.lineSeparator());
    topTandemFrames.forEach(e -> out.append(String.format("  %6d  %s%n", e.getValue(), e.getKey())));
    out.append(System.lineSeparator()).append("Tandem's methods that made them Tandem's:").append(System.lineSeparator());
    topTandemCallers.forEach(e -> out.append(String.format("  %6d  %s%n", e.getValue(), e.getKey())));
    return out.toString();
  }
}
