package io.tandem.benchmarks.replication;

import com.sun.management.ThreadMXBean;
import io.tandem.benchmarks.FixedMembership;
import io.tandem.core.codec.AttributeCodecs;
import io.tandem.core.codec.ClassFilter;
import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.config.ReplicationMode;
import io.tandem.core.config.ReplicationScope;
import io.tandem.core.replicator.FlushOutcome;
import io.tandem.core.replicator.OwnedSession;
import io.tandem.core.replicator.ReplicationEngine;
import io.tandem.core.replicator.ReplicationListener;
import io.tandem.core.spi.Member;
import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.Transport;
import io.tandem.transport.grizzly.GrizzlyTransport;
import io.tandem.transport.grizzly.GrizzlyTransportConfig;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * Allocation and CPU of one replicated request, owner and buddy apart: two real {@link ReplicationEngine}s
 * (MODIFIED_ATTRIBUTE, SYNC, Kryo, the shipped defaults) over two real {@link GrizzlyTransport}s on loopback in one
 * JVM, and one request thread that replaces a session's one 1 KiB String attribute and flushes, one request at a
 * time, each waiting for its acknowledgement. After a warm-up, it reads every thread's allocated bytes and CPU time
 * ({@code com.sun.management.ThreadMXBean}; CPU also in user mode alone, the rest being the kernel's) before and
 * after {@code --requests} flushes, and divides by them:
 *
 * <ul>
 *   <li><b>owner request thread</b>: the flush (prepare, build the delta, encode, hand to the transport, often the
 *       socket write itself) and the wait for the acknowledgement;
 *   <li><b>owner transport</b>: the owner's Grizzly selector threads and its timer (reading acks, completing the
 *       reply, writes the request thread left to them);
 *   <li><b>buddy transport</b>: the buddy's (reading the request, decoding it, {@code BackupStore} apply, the ack);
 *   <li><b>other</b>: every other thread of the JVM (JIT and GC threads allocate nothing on the heap; JFR's own).
 * </ul>
 *
 * <p>One writer, so every request is a round trip of its own (no group commit, no held requests): the cost of one
 * SYNC flush, not of a batch. With {@code --jfr FILE} the measured requests are also recorded (allocation samples
 * and CPU samples) and the top allocation sites of each group printed, weighted by JFR's sampled bytes.
 *
 * <pre>
 * java -cp "benchmarks/target/classes:$(cat benchmarks/target/bench.classpath)" \
 *     io.tandem.benchmarks.replication.FlushAllocation [--warm-up N] [--requests N] [--jfr FILE] [--top N]
 * </pre>
 *
 * <p>Implementation notes: single-threaded apart from the engines' and transports' own threads; the figures are
 * deterministic in what they count (bytes allocated) but vary a little with the JIT's inlining and with Grizzly's
 * buffer pools; repeat a run to see the spread.
 */
public final class FlushAllocation {
  private static final NodeId OWNER = new NodeId("a-owner");
  private static final NodeId BUDDY = new NodeId("b-buddy");
  private static final byte[] SECRET = "tandem-flush-allocation".getBytes(StandardCharsets.UTF_8);
  private static final Duration ACK_TIMEOUT = Duration.ofMillis(500);
  private static final List<String> GROUPS = List.of("owner request thread", "owner transport", "buddy transport", "other");

  private FlushAllocation() {}

  public static void main(String[] args) throws Exception {
    int warmUp = 30_000;
    int requests = 50_000;
    int top = 12;
    Path jfr = null;
    boolean exactSites = false;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--warm-up" -> warmUp = Integer.parseInt(args[++i]);
        case "--requests" -> requests = Integer.parseInt(args[++i]);
        case "--jfr" -> jfr = Path.of(args[++i]);
        case "--top" -> top = Integer.parseInt(args[++i]);
        case "--exact-sites" -> exactSites = true;
        default -> {
          System.err.println("unknown option " + args[i] + "; allowed: --warm-up N --requests N --jfr FILE --top N");
          System.exit(2);
        }
      }
    }
    Thread.currentThread().setName("flush-allocation-request");
    int ownerPort = freePort();
    int buddyPort = freePort();
    MembershipView view = new MembershipView(1, List.of(new Member(OWNER, "127.0.0.1:" + ownerPort),
        new Member(BUDDY, "127.0.0.1:" + buddyPort)));
    ReplicationEngine buddy = engine(BUDDY, buddyPort, view);
    ReplicationEngine owner = engine(OWNER, ownerPort, view);
    try {
      long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      while (owner.buddy().isEmpty()) { // startup only: the view arrives on the membership's thread
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("the owner has no buddy after 20 s");
        }
        Thread.sleep(10);
      }
      WriterSession session = new WriterSession(1024, 0, System.currentTimeMillis());
      OwnedSession handle = owner.sessionCreated(String.format(Locale.ROOT, "%032X", 0xA110CL), session);
      FlushOutcome first = FlushOutcome.NOTHING;
      while (first != FlushOutcome.REPLICATED) { // the first flush sends the session in full; the pair may be connecting
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("session not replicated after 20 s: " + first);
        }
        first = owner.flush(handle, Set.of());
      }
      requests(owner, handle, session, warmUp);
      Recording recording = jfr == null ? null : startRecording(exactSites);
      ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
      threads.setThreadAllocatedMemoryEnabled(true);
      threads.setThreadCpuTimeEnabled(true);
      Map<Long, long[]> before = sample(threads);
      requests(owner, handle, session, requests);
      Map<Long, long[]> after = sample(threads);
      if (recording != null) {
        recording.stop();
        recording.dump(jfr);
        recording.close();
      }
      report(threads, before, after, requests);
      if (jfr != null) {
        topSites(jfr, top, requests);
      }
    } finally {
      owner.close();
      buddy.close();
    }
  }

  private static void requests(ReplicationEngine owner, OwnedSession handle, WriterSession session, int n) {
    for (int i = 0; i < n; i++) {
      session.update(System.currentTimeMillis());
      owner.attributeChanged(handle, WriterSession.ATTRIBUTE);
      FlushOutcome outcome = owner.flush(handle, Set.of());
      if (outcome != FlushOutcome.REPLICATED) {
        throw new IllegalStateException("request " + i + ": " + outcome);
      }
    }
  }

  private static ReplicationEngine engine(NodeId local, int port, MembershipView view) throws Exception {
    GrizzlyTransportConfig defaults = GrizzlyTransportConfig.loopback("tandem-flush-allocation", local, SECRET, ACK_TIMEOUT);
    GrizzlyTransportConfig config = new GrizzlyTransportConfig(defaults.clusterName(), local, "127.0.0.1", port, SECRET,
        ACK_TIMEOUT, defaults.connectTimeout(), defaults.maxFrameSize(), defaults.maxQueuedBytesPerPeer(),
        defaults.reconnectBackoffMin(), defaults.reconnectBackoffMax(), null);
    ReplicationConfig replication = ReplicationConfig.builder().scope(ReplicationScope.MODIFIED_ATTRIBUTE)
        .mode(ReplicationMode.SYNC).ackTimeout(ACK_TIMEOUT).build();
    Transport transport = new GrizzlyTransport(config);
    if (local.equals(BUDDY)) {
      transport = new BuddyThreads(transport);
    }
    ReplicationEngine engine = new ReplicationEngine(replication, transport,
        new FixedMembership(local, view),
        AttributeCodecs.create(replication.codec(), ClassFilter.defaultsOnly(), replication.codecLimits()),
        Clock.systemUTC(), ReplicationListener.NONE);
    engine.start();
    return engine;
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  /** Thread id → {allocated bytes, CPU ns, user-mode CPU ns}. */
  private static Map<Long, long[]> sample(ThreadMXBean threads) {
    long[] ids = threads.getAllThreadIds();
    long[] bytes = threads.getThreadAllocatedBytes(ids);
    long[] cpu = threads.getThreadCpuTime(ids);
    long[] user = threads.getThreadUserTime(ids);
    Map<Long, long[]> sample = new HashMap<>();
    for (int i = 0; i < ids.length; i++) {
      sample.put(ids[i], new long[] {Math.max(0, bytes[i]), Math.max(0, cpu[i]), Math.max(0, user[i])});
    }
    return sample;
  }

  /**
   * Grizzly names its selector threads after its pool, not the transport ({@code grizzly-nio-kernel(n)
   * SelectorRunner} in both): a Grizzly thread is the buddy's when the buddy's request handler ran on it, and the
   * owner's otherwise (its selector reads the acks; the buddy's other selector threads are idle).
   */
  static String group(String threadName, boolean ranBuddyHandler) {
    if (threadName.equals("flush-allocation-request")) {
      return GROUPS.get(0);
    }
    if (ranBuddyHandler || threadName.contains(BUDDY.value())) {
      return GROUPS.get(2);
    }
    if (threadName.contains(OWNER.value()) || threadName.startsWith("grizzly-")) {
      return GROUPS.get(1);
    }
    return GROUPS.get(3);
  }

  private static String group(Thread thread) {
    return group(thread.getName(), BuddyThreads.HANDLER_THREADS.containsKey(thread.getId()));
  }

  private static String group(long threadId, String name) {
    return group(name, BuddyThreads.HANDLER_THREADS.containsKey(threadId));
  }

  private static void report(ThreadMXBean threads, Map<Long, long[]> before, Map<Long, long[]> after, int requests) {
    Map<String, long[]> byGroup = new TreeMap<>();
    Map<String, List<String>> names = new TreeMap<>();
    for (Map.Entry<Long, long[]> e : after.entrySet()) {
      var info = threads.getThreadInfo(e.getKey());
      String name = info == null ? "thread-" + e.getKey() : info.getThreadName();
      long[] was = before.getOrDefault(e.getKey(), new long[3]);
      long bytes = e.getValue()[0] - was[0];
      long cpu = e.getValue()[1] - was[1];
      String group = group(e.getKey(), name);
      long[] sum = byGroup.computeIfAbsent(group, g -> new long[3]);
      sum[0] += bytes;
      sum[1] += cpu;
      sum[2] += e.getValue()[2] - was[2];
      if (bytes > 64L * requests || cpu > 1000L * requests) {
        names.computeIfAbsent(group, g -> new ArrayList<>()).add(String.format(Locale.ROOT, "%s %.0f B %.1f µs", name,
            bytes / (double) requests, cpu / 1000.0 / requests));
      }
    }
    System.out.printf(Locale.ROOT, "%d SYNC MODIFIED_ATTRIBUTE requests (1 KiB String attribute), one at a time%n", requests);
    System.out.printf(Locale.ROOT, "%-22s %14s %14s %10s   threads%n", "group", "bytes/request", "CPU µs/request",
        "of it user");
    for (String group : GROUPS) {
      long[] sum = byGroup.getOrDefault(group, new long[3]);
      System.out.printf(Locale.ROOT, "%-22s %14.0f %14.1f %10.1f   %s%n", group, sum[0] / (double) requests,
          sum[1] / 1000.0 / requests, sum[2] / 1000.0 / requests, names.getOrDefault(group, List.of()));
    }
  }

  private static Recording startRecording(boolean exactSites) {
    Recording recording = new Recording();
    if (exactSites) {
      recording.enable("jdk.ObjectAllocationOutsideTLAB").withStackTrace();
    } else {
      recording.enable("jdk.ObjectAllocationSample").with("throttle", "10000/s").withStackTrace();
    }
    recording.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(10));
    recording.enable("jdk.NativeMethodSample").withPeriod(Duration.ofMillis(20));
    recording.setToDisk(true);
    recording.start();
    return recording;
  }

  /** The top allocation sites of each group: the allocating frame, and the first Tandem frame below it. */
  private static void topSites(Path file, int top, int requests) throws IOException {
    Map<String, Map<String, Long>> weights = new TreeMap<>();
    Map<String, Map<String, Long>> cpu = new TreeMap<>();
    Map<String, Map<String, Long>> exact = new TreeMap<>();
    Map<String, Map<String, Long>> counts = new TreeMap<>();
    for (RecordedEvent event : RecordingFile.readAllEvents(file)) {
      String type = event.getEventType().getName();
      RecordedThread thread = type.equals("jdk.ExecutionSample") ? event.getThread("sampledThread") : event.getThread();
      if (thread == null || event.getStackTrace() == null) {
        continue;
      }
      String group = group(thread.getJavaThreadId(), String.valueOf(thread.getJavaName()));
      if (type.equals("jdk.ObjectAllocationSample")) {
        String site = event.getClass("objectClass").getName() + " @ " + site(event.getStackTrace());
        weights.computeIfAbsent(group, g -> new HashMap<>()).merge(site, event.getLong("weight"), Long::sum);
      } else if (type.equals("jdk.ObjectAllocationOutsideTLAB")) {
        String site = event.getClass("objectClass").getName() + " @ " + site(event.getStackTrace());
        exact.computeIfAbsent(group, g -> new HashMap<>()).merge(site, event.getLong("allocationSize"), Long::sum);
        counts.computeIfAbsent(group, g -> new HashMap<>()).merge(site, 1L, Long::sum);
      } else if (type.equals("jdk.ExecutionSample")) {
        cpu.computeIfAbsent(group, g -> new HashMap<>()).merge(site(event.getStackTrace()), 1L, Long::sum);
      }
    }
    if (!exact.isEmpty()) {
      printExact(exact, counts, requests);
    } else {
      print("allocation (JFR sampled bytes, share of the group)", weights, top);
    }
    print("CPU (JFR execution samples, share of the group's samples)", cpu, top);
    Files.deleteIfExists(file.resolveSibling(file.getFileName() + ".tmp"));
  }

  /** Every allocation site, exactly (with {@code -XX:-UseTLAB} every allocation is an outside-TLAB event). */
  private static void printExact(Map<String, Map<String, Long>> bytes, Map<String, Map<String, Long>> counts,
      int requests) {
    System.out.println();
    System.out.println("== allocation sites, exact (-XX:-UseTLAB): objects and bytes per request");
    for (String group : GROUPS) {
      Map<String, Long> sites = bytes.get(group);
      if (sites == null) {
        continue;
      }
      Map<String, Long> objects = counts.get(group);
      long totalBytes = sites.values().stream().mapToLong(Long::longValue).sum();
      long totalObjects = objects.values().stream().mapToLong(Long::longValue).sum();
      System.out.printf(Locale.ROOT, "-- %s: %.1f objects, %.0f bytes per request%n", group,
          totalObjects / (double) requests, totalBytes / (double) requests);
      sites.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed())
          .filter(e -> objects.get(e.getKey()) * 20L >= requests) // at least once per 20 requests
          .forEach(e -> System.out.printf(Locale.ROOT, "  %6.2f obj %7.1f B  %s%n",
              objects.get(e.getKey()) / (double) requests, e.getValue() / (double) requests, e.getKey()));
    }
  }

  private static void print(String title, Map<String, Map<String, Long>> byGroup, int top) {
    System.out.println();
    System.out.println("== " + title);
    for (String group : GROUPS) {
      Map<String, Long> sites = byGroup.get(group);
      if (sites == null) {
        continue;
      }
      long total = sites.values().stream().mapToLong(Long::longValue).sum();
      System.out.println("-- " + group + " (" + total + ")");
      sites.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(top)
          .forEach(e -> System.out.printf(Locale.ROOT, "  %5.1f %%  %s%n", 100.0 * e.getValue() / total, e.getKey()));
    }
  }

  /** "top frame ← first io.tandem frame" (or the top frame alone when it is Tandem's). */
  private static String site(RecordedStackTrace stack) {
    List<RecordedFrame> frames = stack.getFrames();
    if (frames.isEmpty()) {
      return "?";
    }
    String topFrame = name(frames.get(0));
    for (RecordedFrame frame : frames) {
      String name = name(frame);
      if (name.startsWith("io.tandem.")) {
        return name.equals(topFrame) ? topFrame : topFrame + " ← " + name;
      }
    }
    return topFrame;
  }

  private static String name(RecordedFrame frame) {
    return frame.getMethod().getType().getName() + "." + frame.getMethod().getName() + ":" + frame.getLineNumber();
  }
}
