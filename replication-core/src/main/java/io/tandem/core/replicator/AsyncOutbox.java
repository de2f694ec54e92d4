package io.tandem.core.replicator;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.tandem.core.spi.Scheduler;
import io.tandem.core.spi.Ticker;
import io.tandem.core.wire.Message;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The ASYNC mode queue and its sender: at most {@code capacity} sessions, each with its pending items in order. A new
 * update of a queued session merges into that session's last update ({@link CoalescedUpdate}), so a busy session
 * costs one entry and one message however many requests it served meanwhile.
 *
 * <p>Full-queue policy: an update of a session that is not queued yet is refused when {@code capacity} sessions
 * are queued. The request does not block and the update is not lost: the engine marks the session for a full
 * resend, which its maintenance tick performs once there is room. Id changes are never refused (they are rare and
 * small), so the queue may exceed its capacity by them. Invalidations do not come here at all: the engine sends them
 * at once and {@link #withdraw withdraws} what is queued for the ended session.
 *
 * <p>In-flight window: the sender keeps at most {@code maxInFlight} messages unanswered by the buddy. When the buddy
 * answers more slowly than requests arrive, updates wait here, where they coalesce
 * and the queue is bounded by sessions, rather than in the socket and the buddy's input, where nothing merges and
 * every message waits its turn until it outlives the ack timeout, is counted as failed and comes back as a full
 * resend of its session. A reply that never comes does not stop the sender: after {@code windowWaitNanos} it sends
 * anyway (the transport fails every request by its own timeout, so that is a safety net, not a policy).
 *
 * <p>Replies: the send function hands each reply that needs the session's lock to {@link #replies()}, one lane
 * ({@code tandem-async-replies-<n>} in production), so that the transport's I/O thread never waits for a session lock a request
 * holds: under a CPU cap a request thread can be descheduled with its lock held for a whole CFS period, and every
 * reply (and, on a node that is also a buddy, every request) behind it waited as long. The window counts a message
 * until its reply arrives, not until that thread recorded it, so a reply waiting there for a busy session's lock
 * holds up neither the sender nor the other sessions.
 *
 * <p>Implementation notes: no lock is shared by all requests, beyond the queue's own for the moment of an enqueue
 * (once per session per send, not per request). Each session's entry is guarded by its own monitor, which a request
 * holds only to merge into it and the sender only to take it; {@code entries} (a concurrent map) finds a session's
 * entry, {@code order} (a lock-free queue) holds the entries oldest first and {@code queued} counts them, for the
 * capacity. The sender is a task on its own {@link Scheduler} lane ({@code tandem-async-<n>} in production), never a
 * thread that waits: an enqueue that makes a new entry schedules it unless it is scheduled already ({@code
 * pumpScheduled}), and it sends until the queue is empty or the window full; a reply that frees a place in a full
 * window, or the window's wait running out (a timer on the same lane), schedules it again. So the deterministic
 * simulation runs it in virtual time, as it runs the maintenance tick. The sender's own state ({@code sending}, the
 * entry being sent, and the window timer) is confined to that lane, whose tasks run one at a time. It takes the oldest
 * entry once the window has room (until then the entry stays open to merges) and hands its items, in order, to the
 * send function, holding no lock, not even the session's: a session's items stay in order because only the sender
 * sends them, and an update its requests add meanwhile makes a new entry, taken after this one. (The sender used to
 * hold the session's lock while it encoded and sent; a session whose requests kept that lock busy starved the sender
 * and every session queued behind it.)
 */
final class AsyncOutbox implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(AsyncOutbox.class.getName());

  /**
   * The engine's window: no more unanswered messages than a SYNC node with Tomcat's default 200 request threads
   * can have, a few hundred KiB of MODIFIED_ATTRIBUTE deltas, which a buddy that spends a few hundred µs per message
   * answers well within the shipped 500 ms ack timeout, even at a CPU cap.
   */
  static final int MAX_IN_FLIGHT = 256;

  /** Hands one item (a {@link SessionUpdate} or a {@link Message}) to the transport, on the sender thread. */
  @FunctionalInterface
  interface Sender {
    /**
     * The reply, which completes when it arrives (or fails), or null when nothing was sent (no buddy).
     *
     * @param more whether more items are queued behind this one right now: the transport may then leave the write
     *     to its I/O thread to write them together; a lone item is written at once
     */
    CompletionStage<?> send(OwnedSession session, Object item, boolean more);
  }

  /** One session's pending items; taken whole by the sender. */
  private static final class Entry {
    final OwnedSession session;

    @GuardedBy("this")
    final ArrayDeque<Object> items = new ArrayDeque<>(2);

    @GuardedBy("this")
    boolean taken;

    /** The session ended before the sender took this entry: its items were dropped, nothing is sent. */
    @GuardedBy("this")
    boolean withdrawn;

    /** An entry holding {@code first}; not shared until it is published, so its first item is added here. */
    Entry(OwnedSession session, Object first) {
      this.session = session;
      items.add(first);
    }
  }

  private final int capacity;
  private final int maxInFlight;
  private final long windowWaitNanos;
  /** Messages sent whose reply has not arrived, at most {@code maxInFlight} (but for sends the window's wait forced). */
  private final AtomicInteger inFlight = new AtomicInteger();
  private final ConcurrentHashMap<OwnedSession, Entry> entries = new ConcurrentHashMap<>();
  private final Queue<Entry> order = new ConcurrentLinkedQueue<>();
  private final AtomicInteger queued = new AtomicInteger();
  /**
   * Per session, the old ids of id changes queued and not yet handed to the transport: the buddy may still hold the
   * session under one of them. Added by {@link #offerControl} (under the session's lock), removed by the sender once
   * it handed the change over, or taken whole by {@link #withdraw}.
   */
  private final ConcurrentHashMap<OwnedSession, Set<String>> unsentIdChanges = new ConcurrentHashMap<>();
  private final Sender send;
  /** The sender's lane: {@link #pump} and the window timer run here, one at a time. */
  private final Scheduler senderLane;
  private final Scheduler repliesLane;
  /** Whether a {@link #pump} is scheduled and has not started yet: an enqueue schedules one only if none is. */
  private final AtomicBoolean pumpScheduled = new AtomicBoolean();
  /** The sender stopped for a full window: a reply that frees a place schedules it again. */
  private volatile boolean waitingForWindow;
  private volatile boolean closed;
  private final Ticker ticker;
  /** The sender, as the task its lane runs: one instance, not one per wake-up. */
  private final Runnable pumpTask = this::pump;
  /** The items of the entry being sent, and whose they are; confined to the sender's lane. */
  private ArrayDeque<Object> sending;
  private OwnedSession sendingFor;
  /**
   * The wait for room in a full window: whether one is on, since when (ticker nanos), whether a timer is armed to end
   * it, and whether it ran out (the next item goes out without a place). One timer at a time, re-armed for what is
   * left when it finds a later wait: a saturated buddy frees a place per reply, and a timer armed and cancelled per
   * reply cost a scheduled task each. Confined to the sender's lane.
   */
  private boolean windowWaitOn;
  private long windowWaitSince;
  private boolean windowTimerArmed;
  private boolean windowWaitedOut;

  /**
   * @param maxInFlight messages the sender keeps unanswered at most
   * @param windowWaitNanos how long the sender waits for room in the window before it sends anyway
   * @param senderLane where the sender runs (owned from here on: closed with this outbox)
   * @param repliesLane where replies that take a session's lock are recorded (owned from here on)
   */
  AsyncOutbox(int capacity, int maxInFlight, long windowWaitNanos, Ticker ticker, Scheduler senderLane,
      Scheduler repliesLane, Sender send) {
    if (capacity < 1 || maxInFlight < 1 || windowWaitNanos <= 0) {
      throw new IllegalArgumentException("capacity " + capacity + ", maxInFlight " + maxInFlight + ", windowWait "
          + windowWaitNanos + " ns: each must be positive");
    }
    this.capacity = capacity;
    this.maxInFlight = maxInFlight;
    this.windowWaitNanos = windowWaitNanos;
    this.ticker = ticker;
    this.senderLane = senderLane;
    this.repliesLane = repliesLane;
    this.send = send;
  }

  /** Where the send function hands replies: one lane, in the order they arrive. */
  Scheduler replies() {
    return repliesLane;
  }

  /** Queues an update; false when the queue is full and the session has no entry yet. */
  boolean offer(OwnedSession session, SessionUpdate update) {
    while (!closed) {
      Entry entry = entries.get(session);
      if (entry == null) {
        if (!reserve()) {
          return false;
        }
        entry = new Entry(session, new CoalescedUpdate(update));
        if (entries.putIfAbsent(session, entry) == null) {
          order.add(entry);
          wake();
          return true;
        }
        queued.decrementAndGet(); // a parallel offer made the entry first: merge into it
        continue;
      }
      synchronized (entry) {
        if (entry.taken) {
          entries.remove(session, entry); // the sender is about to; make room for the new entry now
          continue;
        }
        if (!(entry.items.peekLast() instanceof CoalescedUpdate last && last.add(update))) {
          entry.items.addLast(new CoalescedUpdate(update));
        }
        return true;
      }
    }
    return false;
  }

  /** Queues a control message (an id change) after the session's pending updates; never refused. */
  void offerControl(OwnedSession session, Message message) {
    if (message instanceof Message.IdChange change) {
      unsentIdChanges.computeIfAbsent(session, s -> ConcurrentHashMap.newKeySet()).add(change.oldId());
    }
    while (!closed) {
      Entry entry = entries.get(session);
      if (entry == null) {
        queued.incrementAndGet();
        entry = new Entry(session, message);
        if (entries.putIfAbsent(session, entry) == null) {
          order.add(entry);
          wake();
          return;
        }
        queued.decrementAndGet();
        continue;
      }
      synchronized (entry) {
        if (entry.taken) {
          entries.remove(session, entry);
          continue;
        }
        entry.items.addLast(message);
        return;
      }
    }
  }

  /**
   * The session ended: drops what is queued for it and not taken by the sender yet (nothing of an ended session
   * matters to its buddy but the invalidation, which the caller sends at once rather than behind the queue), and
   * returns the old ids of its id changes not yet handed to the transport, under which the buddy may still hold it.
   * Items of an entry the sender took already still go out; the buddy's tombstone refuses them.
   */
  Set<String> withdraw(OwnedSession session) {
    Entry entry = entries.remove(session);
    if (entry != null) {
      synchronized (entry) {
        if (!entry.taken) {
          entry.withdrawn = true;
          entry.items.clear();
        }
      }
    }
    Set<String> oldIds = unsentIdChanges.remove(session);
    return oldIds == null ? Set.of() : Set.copyOf(oldIds);
  }

  /** Counts one more entry if there is room for it. */
  private boolean reserve() {
    int now;
    do {
      now = queued.get();
      if (now >= capacity) {
        return false;
      }
    } while (!queued.compareAndSet(now, now + 1));
    return true;
  }

  boolean isQueued(OwnedSession session) {
    return entries.containsKey(session);
  }

  int size() {
    return queued.get();
  }

  /** Messages sent whose reply has not arrived (a moment's reading while sends and replies run). */
  int inFlight() {
    return inFlight.get();
  }

  /** Schedules the sender unless it is scheduled already (read first: most wake-ups find it scheduled). */
  private void wake() {
    if (!closed && !pumpScheduled.get() && pumpScheduled.compareAndSet(false, true)) {
      try {
        senderLane.execute(pumpTask);
      } catch (RuntimeException e) {
        pumpScheduled.set(false); // not scheduled after all: the next wake-up tries again
        throw e;
      }
    }
  }

  /**
   * The sender, on its lane: sends the oldest entries' items while the window has room (or its wait ran out), and
   * stops when the queue is empty or the window full; see the class comment for what schedules it again.
   */
  private void pump() {
    pumpScheduled.set(false); // first: an entry queued from now on schedules another run
    waitingForWindow = false;
    while (!closed) {
      if (sending == null) {
        Entry entry = order.peek();
        if (entry == null) {
          endWindowWait(); // nothing waits: the next full window starts a wait of its own
          return;
        }
        if (isWithdrawn(entry)) {
          order.poll();
          queued.decrementAndGet();
          continue;
        }
        // Until the window has room the entry stays in entries, untaken: its session's requests still merge into it.
        Boolean permit = placeInWindow();
        if (permit == null) {
          return;
        }
        order.poll();
        synchronized (entry) {
          entry.taken = true;
          sending = entry.items;
        }
        sendingFor = entry.session;
        entries.remove(entry.session, entry);
        queued.decrementAndGet();
        // The items are the sender's alone from here: nobody can reach them to merge into them any more.
        sendNext(permit);
      } else {
        Boolean permit = placeInWindow();
        if (permit == null) {
          return;
        }
        sendNext(permit);
      }
    }
  }

  /** Sends the next item of the entry being sent; {@code permit}: it holds a place in the window. */
  private void sendNext(boolean permit) {
    Object item = sending.poll();
    OwnedSession session = sendingFor;
    boolean more = item != null && (!sending.isEmpty() || !order.isEmpty());
    if (sending.isEmpty()) {
      sending = null;
      sendingFor = null;
    }
    if (item == null) { // withdrawn while the sender waited for the window
      if (permit) {
        freePlace();
      }
      return;
    }
    sendOne(session, item, more, permit);
    if (item instanceof Message.IdChange change) {
      handedOver(session, change.oldId()); // ordered before anything sent to the buddy from now on
    }
  }

  /**
   * A place in the window for the next item: TRUE when it took one, FALSE when there is none but the window's wait
   * ran out (the item goes out anyway), null when the sender must wait (a reply or the timer schedules it again).
   */
  private Boolean placeInWindow() {
    if (takePlace()) {
      endWindowWait();
      return Boolean.TRUE;
    }
    if (windowWaitedOut) {
      endWindowWait();
      return Boolean.FALSE;
    }
    waitingForWindow = true;
    if (takePlace()) { // a reply freed one between the two readings: it may have seen waitingForWindow still false
      waitingForWindow = false;
      endWindowWait();
      return Boolean.TRUE;
    }
    if (!windowWaitOn) {
      windowWaitOn = true;
      windowWaitSince = ticker.read();
    }
    if (!windowTimerArmed) {
      armWindowDeadline(windowWaitNanos - (ticker.read() - windowWaitSince));
    }
    return null;
  }

  private void armWindowDeadline(long inNanos) {
    windowTimerArmed = true;
    senderLane.schedule(this::windowDeadlineReached, Duration.ofNanos(Math.max(0, inNanos)));
  }

  /**
   * The window's timer, on the sender's lane: a reply that never comes does not stop the sender. It may find the wait
   * it was armed for over, and another on since: then it waits for what is left of that one.
   */
  private void windowDeadlineReached() {
    windowTimerArmed = false;
    if (!windowWaitOn || closed) {
      return;
    }
    long left = windowWaitNanos - (ticker.read() - windowWaitSince);
    if (left > 0) {
      armWindowDeadline(left);
      return;
    }
    windowWaitedOut = true;
    pump();
  }

  private void endWindowWait() {
    windowWaitOn = false;
    windowWaitedOut = false;
  }

  private boolean takePlace() {
    int now;
    do {
      now = inFlight.get();
      if (now >= maxInFlight) {
        return false;
      }
    } while (!inFlight.compareAndSet(now, now + 1));
    return true;
  }

  /** A reply came (or nothing was sent): its place is free, and a sender waiting for one runs again. */
  private void freePlace() {
    inFlight.decrementAndGet();
    if (waitingForWindow) {
      wake();
    }
  }

  private static boolean isWithdrawn(Entry entry) {
    synchronized (entry) {
      return entry.withdrawn;
    }
  }

  private void handedOver(OwnedSession session, String oldId) {
    unsentIdChanges.computeIfPresent(session, (s, ids) -> {
      ids.remove(oldId);
      return ids.isEmpty() ? null : ids;
    });
  }

  /**
   * Sends one item (a {@link CoalescedUpdate} is built into its update first); {@code permit}: it holds a place in the
   * window, which its reply gives back.
   */
  private void sendOne(OwnedSession session, Object item, boolean more, boolean permit) {
    CompletionStage<?> reply = null;
    try {
      reply = send.send(session, item instanceof CoalescedUpdate update ? update.build() : item, more);
    } catch (RuntimeException e) {
      // A bug, not a peer's doing: the sender must outlive it, or every later update would wait forever.
      LOG.log(System.Logger.Level.ERROR, "Async replication could not send an update of session [" + session.id()
          + "]; the sender goes on with the next", e);
    }
    if (!permit) {
      return;
    }
    if (reply == null) {
      freePlace();
    } else {
      reply.whenComplete((answer, failure) -> freePlace());
    }
  }

  @Override
  public void close() {
    closed = true;
    senderLane.close();
    repliesLane.close(); // replies still arriving are dropped rather than refused on the transport's thread
  }
}
