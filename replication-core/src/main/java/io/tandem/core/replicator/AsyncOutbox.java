package io.tandem.core.replicator;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.tandem.core.wire.Message;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
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
 * <p>Replies: the send function hands each reply that needs the session's lock to {@link #replies()}, one thread
 * ({@code tandem-async-replies-<n>}), so that the transport's I/O thread never waits for a session lock a request
 * holds: under a CPU cap a request thread can be descheduled with its lock held for a whole CFS period, and every
 * reply (and, on a node that is also a buddy, every request) behind it waited as long. The window counts a message
 * until its reply arrives, not until that thread recorded it, so a reply waiting there for a busy session's lock
 * holds up neither the sender nor the other sessions.
 *
 * <p>Implementation notes: no lock is shared by all requests, beyond the queue's own for the moment of an enqueue
 * (once per session per send, not per request). Each session's entry is guarded by its own monitor, which a request
 * holds only to merge into it and the sender only to take it; {@code entries} (a concurrent map) finds a session's
 * entry, {@code order} (a blocking queue) holds the entries oldest first and {@code queued} counts them, for the
 * capacity. One sender thread, {@code tandem-async-<n>}, takes the oldest entry once the window has room (until then
 * the entry stays open to merges) and hands its items, in order, to the send function, holding no lock, not even the
 * session's: a session's items stay in order because only this thread sends them, and an update its requests add
 * meanwhile makes a new entry, taken after this one. (The sender used to hold the session's lock while it encoded
 * and sent; a session whose requests kept that lock busy starved the sender and every session queued behind it.)
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
  private final Semaphore window;
  private final ConcurrentHashMap<OwnedSession, Entry> entries = new ConcurrentHashMap<>();
  private final BlockingQueue<Entry> order = new LinkedBlockingQueue<>();
  private final AtomicInteger queued = new AtomicInteger();
  /**
   * Per session, the old ids of id changes queued and not yet handed to the transport: the buddy may still hold the
   * session under one of them. Added by {@link #offerControl} (under the session's lock), removed by the sender once
   * it handed the change over, or taken whole by {@link #withdraw}.
   */
  private final ConcurrentHashMap<OwnedSession, Set<String>> unsentIdChanges = new ConcurrentHashMap<>();
  private final Thread sender;
  private final ExecutorService replies;
  private volatile boolean closed;

  /**
   * @param maxInFlight messages the sender keeps unanswered at most
   * @param windowWaitNanos how long the sender waits for room in the window before it sends anyway
   */
  AsyncOutbox(int capacity, int maxInFlight, long windowWaitNanos, String threadName, Sender send) {
    if (capacity < 1 || maxInFlight < 1 || windowWaitNanos <= 0) {
      throw new IllegalArgumentException("capacity " + capacity + ", maxInFlight " + maxInFlight + ", windowWait "
          + windowWaitNanos + " ns: each must be positive");
    }
    this.capacity = capacity;
    this.maxInFlight = maxInFlight;
    this.windowWaitNanos = windowWaitNanos;
    this.window = new Semaphore(maxInFlight);
    this.sender = new Thread(() -> drain(send), threadName);
    sender.setDaemon(true);
    // After close, replies still arriving are dropped rather than refused on the transport's thread.
    this.replies = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), r -> {
      Thread t = new Thread(r, threadName.replace("tandem-async-", "tandem-async-replies-"));
      t.setDaemon(true);
      return t;
    }, new ThreadPoolExecutor.DiscardPolicy());
  }

  void start() {
    sender.start();
  }

  /** Where the send function hands replies: one thread, in the order they arrive. */
  ExecutorService replies() {
    return replies;
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
    return maxInFlight - window.availablePermits();
  }

  private void drain(Sender send) {
    try {
      while (!closed) {
        Entry entry = order.take();
        if (isWithdrawn(entry)) {
          queued.decrementAndGet();
          continue;
        }
        // Until the window has room the entry stays in entries, untaken: its session's requests still merge into it.
        boolean permit = window.tryAcquire(windowWaitNanos, TimeUnit.NANOSECONDS);
        ArrayDeque<Object> items;
        synchronized (entry) {
          entry.taken = true;
          items = entry.items;
        }
        entries.remove(entry.session, entry);
        queued.decrementAndGet();
        if (items.isEmpty() && permit) {
          window.release(); // withdrawn while this thread waited for the window
        }
        // The items are this thread's alone from here: nobody can reach them to merge into them any more.
        for (Iterator<Object> it = items.iterator(); it.hasNext() && !closed; ) {
          Object item = it.next();
          boolean more = it.hasNext() || !order.isEmpty();
          sendOne(send, entry.session, item instanceof CoalescedUpdate update ? update.build() : item, more, permit);
          if (item instanceof Message.IdChange change) {
            handedOver(entry.session, change.oldId()); // ordered before anything sent to the buddy from now on
          }
          if (it.hasNext()) {
            permit = window.tryAcquire(windowWaitNanos, TimeUnit.NANOSECONDS);
          }
        }
      }
    } catch (InterruptedException e) {
      // closed
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

  /** Sends one item; {@code permit}: it holds a place in the window, which its reply gives back. */
  private void sendOne(Sender send, OwnedSession session, Object item, boolean more, boolean permit) {
    CompletionStage<?> reply = null;
    try {
      reply = send.send(session, item, more);
    } catch (RuntimeException e) {
      // A bug, not a peer's doing: the sender must outlive it, or every later update would wait forever.
      LOG.log(System.Logger.Level.ERROR, "Async replication could not send an update of session [" + session.id()
          + "]; the sender goes on with the next", e);
    }
    if (!permit) {
      return;
    }
    if (reply == null) {
      window.release();
    } else {
      reply.whenComplete((answer, failure) -> window.release());
    }
  }

  @Override
  public void close() {
    closed = true;
    sender.interrupt();
    replies.shutdownNow();
  }
}
