package io.tandem.benchmarks.load;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.lang.management.ThreadMXBean;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

/**
 * One selector thread driving its share of the virtual users: timers, connections, requests and responses.
 *
 * <p>Scheduling without coordinated omission: a user's next request is <em>intended</em> for the moment its last
 * response completed plus a think time, and its latency is measured from that intended moment, not from when the
 * loop got round to sending it. A loop that falls behind (busy, descheduled, paused by GC) therefore adds its delay to
 * the latencies instead of hiding it, and {@link LoopStats#sendLag} shows how much of it was the driver's.
 *
 * <p>Implementation notes: everything here is owned by the loop thread, except {@link #stop}, which any thread may
 * call. Thinking users wait in a priority queue ordered by intended send time (each user is in it at most once, so
 * nothing is cancelled). Request timeouts run from the intended time and are all equally long; since requests start
 * in intended-time order, their deadlines arrive in FIFO order and a plain deque holds them. A deadline whose request
 * already ended is recognised by the user's exchange counter and dropped. One direct read buffer serves every
 * connection: the parsers copy nothing out of it.
 */
final class EventLoop implements Runnable {

  private static final int READ_BUFFER_BYTES = 64 * 1024;

  private record Deadline(long at, VirtualUser user, long exchange) { }

  private final List<VirtualUser> users;
  private final LoadProfile profile;
  private final Timeline timeline;
  private final ResponseListener listener;
  private final boolean measuresProcess;
  private final Selector selector;
  private final SplittableRandom random;
  private final long timeoutNanos;

  private final PriorityQueue<VirtualUser> thinking =
      new PriorityQueue<>((a, b) -> Long.signum(a.intended - b.intended));
  private final ArrayDeque<Deadline> deadlines = new ArrayDeque<>();
  private final ByteBuffer readBuffer = ByteBuffer.allocateDirect(READ_BUFFER_BYTES);
  private final LoopStats stats = new LoopStats();

  private volatile boolean stopRequested;
  private volatile Throwable failure;
  private int inFlight;
  private boolean windowStarted;
  private boolean windowEnded;
  private long cpuAtStart;
  private long processCpuAtStart;

  /**
   * @param users this loop's users, their first intended send times set
   * @param measuresProcess true for the one loop that samples the whole process's CPU time
   */
  EventLoop(List<VirtualUser> users, LoadProfile profile, Timeline timeline, ResponseListener listener,
      boolean measuresProcess, long seed) throws IOException {
    this.users = List.copyOf(users);
    this.profile = profile;
    this.timeline = timeline;
    this.listener = listener;
    this.measuresProcess = measuresProcess;
    this.random = new SplittableRandom(seed);
    this.timeoutNanos = profile.requestTimeout().toNanos();
    this.selector = Selector.open();
  }

  /** Asks the loop to end soon, abandoning requests in flight. Any thread. */
  void stop() {
    stopRequested = true;
    selector.wakeup();
  }

  /** Releases a loop that will never run: its users hold no connections yet, only its selector is open. */
  void discard() {
    try {
      selector.close();
    } catch (IOException e) {
      // Nothing left to release; the caller is already reporting why the step cannot run.
    }
  }

  /** What the loop recorded; read only after its thread ended. */
  LoopStats stats() {
    return stats;
  }

  /** An unexpected error that ended the loop (a bug: I/O errors are counted, not thrown), or null. */
  Throwable failure() {
    return failure;
  }

  @Override
  public void run() {
    try {
      loop();
    } catch (IOException | RuntimeException | Error e) {
      failure = e;
    } finally {
      for (VirtualUser user : users) {
        user.closeConnection();
      }
      try {
        selector.close();
      } catch (IOException e) {
        if (failure == null) {
          failure = e;
        }
      }
    }
  }

  private void loop() throws IOException {
    thinking.addAll(users);
    long lastWake = System.nanoTime();
    while (true) {
      long now = System.nanoTime();
      markWindow(now);
      expireDeadlines(now);
      startDueRequests(now);
      if (stopRequested || (thinking.isEmpty() && inFlight == 0) || now - timeline.hardStop() >= 0) {
        break;
      }
      long beforeSelect = System.nanoTime();
      long wait = nextWake(now) - beforeSelect;
      if (windowStarted && !windowEnded) {
        stats.busyNanos += beforeSelect - lastWake;
      }
      if (wait <= 0) {
        selector.selectNow();
      } else {
        // Rounded up: a timer fires up to 1 ms late rather than the loop spinning until it is due.
        selector.select(Math.max(1, (wait + 999_999) / 1_000_000));
      }
      lastWake = System.nanoTime();
      handleReadyKeys();
    }
    abandonInFlight();
    markWindow(timeline.measureEnd()); // ended early or stopped: the rest of the window was idle
  }

  /** Samples CPU time as the window opens and closes, so driver CPU covers the window only. */
  private void markWindow(long now) {
    if (!windowStarted && now - timeline.measureStart() >= 0) {
      windowStarted = true;
      cpuAtStart = threadCpu();
      processCpuAtStart = measuresProcess ? processCpu() : LoopStats.UNKNOWN;
    }
    if (windowStarted && !windowEnded && now - timeline.measureEnd() >= 0) {
      windowEnded = true;
      long cpuAtEnd = threadCpu();
      if (cpuAtStart != LoopStats.UNKNOWN && cpuAtEnd != LoopStats.UNKNOWN) {
        stats.cpuNanos = cpuAtEnd - cpuAtStart;
      }
      long processCpuAtEnd = measuresProcess ? processCpu() : LoopStats.UNKNOWN;
      if (processCpuAtStart != LoopStats.UNKNOWN && processCpuAtEnd != LoopStats.UNKNOWN) {
        stats.processCpuNanos = processCpuAtEnd - processCpuAtStart;
      }
    }
  }

  private long nextWake(long now) {
    long next = timeline.hardStop();
    if (!thinking.isEmpty()) {
      next = earlier(next, thinking.peek().intended);
    }
    if (!deadlines.isEmpty()) {
      next = earlier(next, deadlines.peek().at());
    }
    if (!windowStarted) {
      next = earlier(next, timeline.measureStart());
    } else if (!windowEnded) {
      next = earlier(next, timeline.measureEnd());
    }
    return next;
  }

  private static long earlier(long a, long b) {
    return b - a < 0 ? b : a;
  }

  private void expireDeadlines(long now) {
    while (!deadlines.isEmpty() && deadlines.peek().at() - now <= 0) {
      Deadline deadline = deadlines.poll();
      VirtualUser user = deadline.user();
      if (user.exchange == deadline.exchange() && user.inFlight()) {
        fail(user, ErrorKind.TIMEOUT);
      }
    }
  }

  private void startDueRequests(long now) {
    while (!thinking.isEmpty() && thinking.peek().intended - now <= 0) {
      start(thinking.poll(), now);
    }
  }

  private void start(VirtualUser user, long now) {
    user.exchange++;
    user.retried = false;
    inFlight++;
    if (timeline.measured(user.intended)) {
      stats.sendLag(now - user.intended);
    }
    deadlines.add(new Deadline(user.intended + timeoutNanos, user, user.exchange));
    user.request = user.script.request();
    if (user.channel != null) {
      user.phase = VirtualUser.Phase.WRITING;
      write(user);
    } else {
      connect(user);
    }
  }

  private void connect(VirtualUser user) {
    if (timeline.measured(user.intended)) {
      stats.connectionsOpened++;
    }
    try {
      SocketChannel channel = SocketChannel.open();
      user.channel = channel;
      user.reused = false;
      channel.configureBlocking(false);
      channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
      if (channel.connect(user.address)) {
        user.key = channel.register(selector, 0, user);
        user.phase = VirtualUser.Phase.WRITING;
        write(user);
      } else {
        user.key = channel.register(selector, SelectionKey.OP_CONNECT, user);
        user.phase = VirtualUser.Phase.CONNECTING;
      }
    } catch (IOException e) {
      fail(user, ErrorKind.CONNECT);
    }
  }

  private void handleReadyKeys() {
    Iterator<SelectionKey> ready = selector.selectedKeys().iterator();
    while (ready.hasNext()) {
      SelectionKey key = ready.next();
      ready.remove();
      VirtualUser user = (VirtualUser) key.attachment();
      try {
        if (!key.isValid()) {
          continue;
        }
        if (key.isConnectable()) {
          finishConnect(user);
          continue;
        }
        if (key.isWritable() && user.phase == VirtualUser.Phase.WRITING) {
          write(user);
        }
        if (key.isValid() && key.isReadable()) {
          read(user);
        }
      } catch (CancelledKeyException e) {
        // The connection was closed while handling an earlier event of this key; the outcome is already counted.
      }
    }
  }

  private void finishConnect(VirtualUser user) {
    try {
      if (!user.channel.finishConnect()) {
        return;
      }
    } catch (IOException e) {
      fail(user, ErrorKind.CONNECT);
      return;
    }
    user.phase = VirtualUser.Phase.WRITING;
    write(user);
  }

  private void write(VirtualUser user) {
    try {
      user.channel.write(user.request);
    } catch (IOException e) {
      connectionLost(user);
      return;
    }
    if (user.request.hasRemaining()) {
      // Read too: a server may answer (and close) before it has read the whole request.
      user.key.interestOps(SelectionKey.OP_WRITE | SelectionKey.OP_READ);
    } else {
      user.request = null;
      user.phase = VirtualUser.Phase.READING;
      user.key.interestOps(SelectionKey.OP_READ);
    }
  }

  private void read(VirtualUser user) {
    while (user.channel != null) {
      readBuffer.clear();
      int n;
      try {
        n = user.channel.read(readBuffer);
      } catch (IOException e) {
        connectionLost(user);
        return;
      }
      if (n == 0) {
        return;
      }
      if (n < 0) {
        endOfStream(user);
        return;
      }
      readBuffer.flip();
      if (!user.inFlight()) {
        // Bytes on an idle connection answer nothing we asked: the stream is out of step, start afresh.
        user.closeConnection();
        return;
      }
      boolean complete;
      try {
        complete = user.parser.feed(readBuffer);
      } catch (MalformedResponseException e) {
        fail(user, ErrorKind.MALFORMED);
        return;
      }
      if (complete) {
        if (readBuffer.hasRemaining()) {
          // More bytes than the response framed: its framing, hence the response itself, cannot be trusted.
          fail(user, ErrorKind.MALFORMED);
        } else {
          complete(user);
        }
        return;
      }
    }
  }

  private void endOfStream(VirtualUser user) {
    if (!user.inFlight()) {
      user.closeConnection(); // the server closed an idle connection; the next request opens another
    } else if (user.parser.endOfInput()) {
      complete(user);
    } else {
      connectionLost(user);
    }
  }

  /**
   * The connection broke before the response was complete. On a reused connection with not a byte of reply, the
   * server most likely closed it as idle just as the request left: the request is sent once more on a new connection
   * (browsers do the same), its latency still running from the intended time. Anything else is an error.
   */
  private void connectionLost(VirtualUser user) {
    if (user.reused && !user.retried && !user.parser.started()) {
      user.closeConnection();
      user.retried = true;
      user.parser.reset();
      user.request = user.script.request();
      connect(user);
    } else {
      fail(user, ErrorKind.CLOSED);
    }
  }

  private void complete(VirtualUser user) {
    long now = System.nanoTime();
    int status = user.parser.status();
    boolean measured = timeline.measured(user.intended);
    boolean newSession = user.script.responded(user.parser.sessionCookie());
    if (measured) {
      if (status >= 200 && status < 300) {
        stats.success(now - user.intended);
      } else {
        stats.error(ErrorKind.STATUS);
      }
      if (newSession) {
        stats.sessionsStarted++;
      }
    }
    // A response that arrived before the request was fully written leaves the stream in an unknown state.
    boolean close = user.parser.closeAfter() || user.request != null;
    user.parser.reset();
    if (close) {
      user.closeConnection();
    } else {
      user.reused = true;
      user.key.interestOps(SelectionKey.OP_READ); // still read: to notice the server closing it while idle
    }
    think(user, now);
    listener.onResponse(user.id, status);
  }

  private void fail(VirtualUser user, ErrorKind kind) {
    if (timeline.measured(user.intended)) {
      stats.error(kind);
    }
    user.closeConnection();
    user.parser.reset();
    user.script.failed();
    think(user, System.nanoTime());
  }

  /** The request ended at {@code now}: the user thinks, then sends again if that is still inside the window. */
  private void think(VirtualUser user, long now) {
    inFlight--;
    user.request = null;
    user.intended = now + profile.nextThinkNanos(random);
    if (timeline.sends(user.intended)) {
      user.phase = VirtualUser.Phase.THINKING;
      thinking.add(user);
    } else {
      user.phase = VirtualUser.Phase.DONE;
      user.closeConnection();
    }
  }

  /** Only reached when stopped early or past the hard stop: what is still in flight timed out. */
  private void abandonInFlight() {
    for (VirtualUser user : users) {
      if (user.inFlight()) {
        if (timeline.measured(user.intended) && !stopRequested) {
          stats.error(ErrorKind.TIMEOUT);
        }
        user.phase = VirtualUser.Phase.DONE;
        inFlight--;
      }
      user.closeConnection();
    }
  }

  private static long threadCpu() {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    if (!threads.isCurrentThreadCpuTimeSupported() || !threads.isThreadCpuTimeEnabled()) {
      return LoopStats.UNKNOWN;
    }
    return threads.getCurrentThreadCpuTime();
  }

  private static long processCpu() {
    OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    if (os instanceof com.sun.management.OperatingSystemMXBean) {
      long cpu = ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime();
      return cpu < 0 ? LoopStats.UNKNOWN : cpu;
    }
    return LoopStats.UNKNOWN;
  }
}
