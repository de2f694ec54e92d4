package io.tandem.core.replicator;

import io.tandem.core.wire.Message;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * The ASYNC mode queue: at most {@code capacity} sessions, each with its pending items in order. A new update of
 * a queued session merges into that session's last update, so a busy session costs one entry and one message
 * however many requests it served meanwhile.
 *
 * <p>Full-queue policy: an update of a session that is not queued yet is refused when {@code capacity} sessions
 * are queued. The request does not block and the update is not lost: the engine marks the session for a full
 * resend, which its maintenance tick performs once there is room. Invalidations and id changes are never refused
 * (they are rare and small, and an invalidation must never be lost), so the queue may exceed its capacity by them.
 *
 * <p>Implementation notes: {@code entries} is guarded by {@code this}. Request threads offer; one sender thread,
 * {@code tandem-async-<n>}, takes the oldest entry and hands its items, in order, to the send function.
 */
final class AsyncOutbox implements AutoCloseable {
  private final int capacity;
  private final Map<OwnedSession, ArrayDeque<Object>> entries = new LinkedHashMap<>();
  private final Thread sender;
  private boolean closed;

  /** @param send called on the sender thread with each item: a {@link SessionUpdate} or a {@link Message} */
  AsyncOutbox(int capacity, String threadName, BiConsumer<OwnedSession, Object> send) {
    this.capacity = capacity;
    this.sender = new Thread(() -> drain(send), threadName);
    sender.setDaemon(true);
  }

  void start() {
    sender.start();
  }

  /** Queues an update; false when the queue is full and the session has no entry yet. */
  synchronized boolean offer(OwnedSession session, SessionUpdate update) {
    ArrayDeque<Object> items = entries.get(session);
    if (items == null) {
      if (entries.size() >= capacity || closed) {
        return false;
      }
      items = new ArrayDeque<>();
      entries.put(session, items);
    } else if (items.peekLast() instanceof SessionUpdate last) {
      SessionUpdate merged = last.then(update);
      if (merged != null) {
        items.pollLast();
        items.addLast(merged);
        return true;
      }
    }
    items.addLast(update);
    notifyAll();
    return true;
  }

  /** Queues a control message (invalidate, id change) after the session's pending updates; never refused. */
  synchronized void offerControl(OwnedSession session, Message message) {
    entries.computeIfAbsent(session, s -> new ArrayDeque<>()).addLast(message);
    notifyAll();
  }

  synchronized boolean isQueued(OwnedSession session) {
    return entries.containsKey(session);
  }

  synchronized int size() {
    return entries.size();
  }

  synchronized boolean hasRoom() {
    return entries.size() < capacity;
  }

  private void drain(BiConsumer<OwnedSession, Object> send) {
    while (true) {
      OwnedSession session;
      ArrayDeque<Object> items;
      synchronized (this) {
        while (entries.isEmpty() && !closed) {
          try {
            wait();
          } catch (InterruptedException e) {
            return;
          }
        }
        if (closed) {
          return;
        }
        Iterator<Map.Entry<OwnedSession, ArrayDeque<Object>>> oldest = entries.entrySet().iterator();
        Map.Entry<OwnedSession, ArrayDeque<Object>> entry = oldest.next();
        oldest.remove();
        session = entry.getKey();
        items = entry.getValue();
      }
      // Holding the session's lock while sending keeps this entry's items ahead of any update the session's
      // requests prepare meanwhile (they queue a new entry, which is sent after this one).
      synchronized (session) {
        for (Object item : items) {
          send.accept(session, item);
        }
      }
    }
  }

  @Override
  public void close() {
    synchronized (this) {
      closed = true;
      notifyAll();
    }
    sender.interrupt();
  }
}
