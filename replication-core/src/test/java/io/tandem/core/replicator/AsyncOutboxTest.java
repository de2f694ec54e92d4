package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.session.SessionMetadata;
import io.tandem.core.wire.Message;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class AsyncOutboxTest {
  private static final SessionMetadata META = SessionMetadata.created(0, 60);
  private static final long LONG_WAIT = TimeUnit.SECONDS.toNanos(30);

  private AsyncOutbox outbox;

  @AfterEach
  void close() {
    if (outbox != null) {
      outbox.close();
    }
  }

  private static OwnedSession session(String id) {
    return new OwnedSession(id, 1, 0, new SessionContent.Stored(new io.tandem.core.session.SessionSnapshot(id, 1, 0, META, Map.of())));
  }

  private static SessionUpdate.Delta delta(String id, long base) {
    return new SessionUpdate.Delta(id, 1, base, base + 1, META, Map.of(), Set.of("x" + base));
  }

  @Test
  void offer_whenFull_refusesNewSessionsButMergesIntoQueuedOnes_andNeverRefusesControl() throws Exception {
    CountDownLatch firstSendStarted = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    List<Object> sent = new CopyOnWriteArrayList<>();
    outbox = new AsyncOutbox(2, 8, LONG_WAIT, io.tandem.core.spi.Ticker.system(),
        io.tandem.core.spi.Scheduler.singleThread("tandem-async-test"),
        io.tandem.core.spi.Scheduler.singleThread("tandem-async-replies-test"), (s, item, more) -> {
      firstSendStarted.countDown();
      try {
        release.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      sent.add(item);
      return CompletableFuture.completedFuture(null);
    });
    OwnedSession blocker = session("blocker");
    OwnedSession a = session("a");
    OwnedSession b = session("b");
    OwnedSession c = session("c");

    assertThat(outbox.offer(blocker, delta("blocker", 0))).isTrue();
    assertThat(firstSendStarted.await(10, TimeUnit.SECONDS)).isTrue();

    assertThat(outbox.offer(a, delta("a", 0))).isTrue();
    assertThat(outbox.offer(b, delta("b", 0))).isTrue();
    assertThat(outbox.offer(c, delta("c", 0))).as("third session over capacity 2").isFalse();
    assertThat(outbox.offer(a, delta("a", 1))).as("merges into a's entry").isTrue();
    outbox.offerControl(c, new Message.IdChange("c", "c2", 1, 1));
    release.countDown();

    await().atMost(Duration.ofSeconds(10)).until(() -> sent.size() == 4);
    assertThat(sent.get(1)).isEqualTo(new SessionUpdate.Delta("a", 1, 0, 2, META, Map.of(), Set.of("x0", "x1")));
    assertThat(sent.get(2)).isEqualTo(delta("b", 0));
    assertThat(sent.get(3)).isInstanceOf(Message.IdChange.class);
  }

  @Test
  void send_saysWhetherMoreIsQueuedBehindTheItem_soALoneUpdateIsWrittenAtOnceAndABurstTogether() throws Exception {
    CountDownLatch firstSendStarted = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    List<String> sent = new CopyOnWriteArrayList<>();
    outbox = new AsyncOutbox(100, 8, LONG_WAIT, io.tandem.core.spi.Ticker.system(),
        io.tandem.core.spi.Scheduler.singleThread("tandem-async-test"),
        io.tandem.core.spi.Scheduler.singleThread("tandem-async-replies-test"), (s, item, more) -> {
      firstSendStarted.countDown();
      try {
        release.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      sent.add(s.id() + (more ? " more" : " last"));
      return CompletableFuture.completedFuture(null);
    });
    outbox.offer(session("lone"), delta("lone", 0));
    assertThat(firstSendStarted.await(10, TimeUnit.SECONDS)).isTrue();
    outbox.offer(session("a"), delta("a", 0));
    outbox.offer(session("b"), delta("b", 0));
    release.countDown();

    await().atMost(Duration.ofSeconds(10)).until(() -> sent.size() == 3);
    assertThat(sent).containsExactly("lone last", "a more", "b last");
  }

  @Test
  void withdraw_dropsWhatIsQueuedForTheEndedSession_andNamesTheIdsTheBuddyMayStillHoldItUnder() throws Exception {
    CountDownLatch firstSendStarted = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    List<Object> sent = new CopyOnWriteArrayList<>();
    outbox = new AsyncOutbox(100, 8, LONG_WAIT, io.tandem.core.spi.Ticker.system(),
        io.tandem.core.spi.Scheduler.singleThread("tandem-async-test"),
        io.tandem.core.spi.Scheduler.singleThread("tandem-async-replies-test"), (s, item, more) -> {
      firstSendStarted.countDown();
      try {
        release.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      sent.add(item);
      return CompletableFuture.completedFuture(null);
    });
    OwnedSession blocker = session("blocker");
    OwnedSession a = session("a");
    OwnedSession b = session("b");
    outbox.offer(blocker, delta("blocker", 0));
    assertThat(firstSendStarted.await(10, TimeUnit.SECONDS)).isTrue();
    outbox.offer(a, delta("a", 0));
    outbox.offerControl(a, new Message.IdChange("a", "a2", 1, 2));
    outbox.offer(a, delta("a2", 2));
    outbox.offer(b, delta("b", 0));

    assertThat(outbox.withdraw(a)).as("the change a -> a2 never went out: the buddy holds the session as a")
        .containsExactly("a");
    assertThat(outbox.isQueued(a)).isFalse();
    release.countDown();

    await().atMost(Duration.ofSeconds(10)).until(() -> sent.size() == 2);
    assertThat(sent).containsExactly(delta("blocker", 0), delta("b", 0));
    assertThat(outbox.size()).isZero();
    await().atMost(Duration.ofSeconds(10)).until(() -> outbox.inFlight() == 0);
  }

  @Test
  void withdraw_afterTheIdChangeWentOut_hasNoOldIdToName() {
    List<Object> sent = new CopyOnWriteArrayList<>();
    outbox = new AsyncOutbox(100, 8, LONG_WAIT, io.tandem.core.spi.Ticker.system(),
        io.tandem.core.spi.Scheduler.singleThread("tandem-async-test"),
        io.tandem.core.spi.Scheduler.singleThread("tandem-async-replies-test"), (s, item, more) -> {
      sent.add(item);
      return CompletableFuture.completedFuture(null);
    });
    OwnedSession a = session("a");
    outbox.offerControl(a, new Message.IdChange("a", "a2", 1, 1));
    outbox.offer(session("b"), delta("b", 0)); // sent after the change was handed over
    await().atMost(Duration.ofSeconds(10)).until(() -> sent.size() == 2);

    assertThat(outbox.withdraw(a)).isEmpty();
  }

  @Test
  void drain_windowFull_waitsForAReplyWhileLaterUpdatesCoalesce() {
    List<Object> sent = new CopyOnWriteArrayList<>();
    List<CompletableFuture<Message>> replies = new CopyOnWriteArrayList<>();
    outbox = new AsyncOutbox(100, 2, LONG_WAIT, io.tandem.core.spi.Ticker.system(),
        io.tandem.core.spi.Scheduler.singleThread("tandem-async-test"),
        io.tandem.core.spi.Scheduler.singleThread("tandem-async-replies-test"), (s, item, more) -> {
      sent.add(item);
      CompletableFuture<Message> reply = new CompletableFuture<>();
      replies.add(reply);
      return reply;
    });
    OwnedSession a = session("a");
    OwnedSession b = session("b");
    OwnedSession c = session("c");

    outbox.offer(a, delta("a", 0));
    outbox.offer(b, delta("b", 0));
    outbox.offer(c, delta("c", 0));
    await().atMost(Duration.ofSeconds(10)).until(() -> sent.size() == 2 && outbox.inFlight() == 2);
    assertThat(outbox.offer(c, delta("c", 1))).isTrue();
    assertThat(outbox.offer(c, delta("c", 2))).isTrue();
    assertThat(sent).as("the window holds two unanswered messages").hasSize(2);

    replies.get(0).complete(new Message.Ack(1, 1));
    await().atMost(Duration.ofSeconds(10)).until(() -> sent.size() == 3);
    assertThat(sent.get(2)).as("c's three updates, one message")
        .isEqualTo(new SessionUpdate.Delta("c", 1, 0, 3, META, Map.of(), Set.of("x0", "x1", "x2")));
    replies.get(1).completeExceptionally(new java.util.concurrent.TimeoutException("no reply"));
    replies.get(2).complete(new Message.Ack(1, 3));
    await().atMost(Duration.ofSeconds(10)).until(() -> outbox.inFlight() == 0);
  }

  @Test
  void drain_aReplyThatNeverComes_delaysTheNextSendOnlyByTheWindowWait() {
    List<Object> sent = new CopyOnWriteArrayList<>();
    outbox = new AsyncOutbox(100, 1, TimeUnit.MILLISECONDS.toNanos(50), io.tandem.core.spi.Ticker.system(),
        io.tandem.core.spi.Scheduler.singleThread("tandem-async-test"),
        io.tandem.core.spi.Scheduler.singleThread("tandem-async-replies-test"), (s, item, more) -> {
      sent.add(item);
      return new CompletableFuture<Message>();
    });

    outbox.offer(session("a"), delta("a", 0));
    outbox.offer(session("b"), delta("b", 0));

    await().atMost(Duration.ofSeconds(10)).until(() -> sent.size() == 2);
  }

  /**
   * Regression: the sender held the session's lock while it encoded and sent, so a session whose requests kept that
   * lock busy (the replication benchmark's writers: 53 messages in 5 s) starved the sender and every session behind it.
   */
  @Test
  void asyncSenderStarvedBySessionLock_sendsWhileARequestHoldsTheSessionLock() throws Exception {
    CountDownLatch sentOne = new CountDownLatch(1);
    outbox = new AsyncOutbox(100, 8, LONG_WAIT, io.tandem.core.spi.Ticker.system(),
        io.tandem.core.spi.Scheduler.singleThread("tandem-async-test"),
        io.tandem.core.spi.Scheduler.singleThread("tandem-async-replies-test"), (s, item, more) -> {
      sentOne.countDown();
      return CompletableFuture.completedFuture(null);
    });
    OwnedSession busy = session("busy");

    synchronized (busy) { // a request of this session, preparing its next update
      outbox.offer(busy, delta("busy", 0));
      assertThat(sentOne.await(10, TimeUnit.SECONDS)).as("sent while the session's lock is held").isTrue();
    }
  }

  @Test
  void drain_aSendThatThrows_doesNotStopTheSender() {
    List<Object> sent = new CopyOnWriteArrayList<>();
    outbox = new AsyncOutbox(100, 1, LONG_WAIT, io.tandem.core.spi.Ticker.system(),
        io.tandem.core.spi.Scheduler.singleThread("tandem-async-test"),
        io.tandem.core.spi.Scheduler.singleThread("tandem-async-replies-test"), (s, item, more) -> {
      if (s.id().equals("bad")) {
        throw new IllegalStateException("a bug");
      }
      sent.add(item);
      return CompletableFuture.completedFuture(null);
    });

    outbox.offer(session("bad"), delta("bad", 0));
    outbox.offer(session("good"), delta("good", 0));

    await().atMost(Duration.ofSeconds(10)).until(() -> sent.size() == 1);
    assertThat(outbox.inFlight()).as("the failed send left the window").isZero();
  }
}
