package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.session.SessionMetadata;
import io.tandem.core.wire.Message;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class AsyncOutboxTest {
  private static final SessionMetadata META = SessionMetadata.created(0, 60);

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
    AsyncOutbox outbox = new AsyncOutbox(2, "tandem-async-test", (s, item) -> {
      firstSendStarted.countDown();
      try {
        release.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      sent.add(item);
    });
    outbox.start();
    OwnedSession blocker = session("blocker");
    OwnedSession a = session("a");
    OwnedSession b = session("b");
    OwnedSession c = session("c");
    try {
      assertThat(outbox.offer(blocker, delta("blocker", 0))).isTrue();
      assertThat(firstSendStarted.await(10, TimeUnit.SECONDS)).isTrue();

      assertThat(outbox.offer(a, delta("a", 0))).isTrue();
      assertThat(outbox.offer(b, delta("b", 0))).isTrue();
      assertThat(outbox.offer(c, delta("c", 0))).as("third session over capacity 2").isFalse();
      assertThat(outbox.offer(a, delta("a", 1))).as("merges into a's entry").isTrue();
      outbox.offerControl(c, new Message.Invalidate("c", 1, 1, Message.InvalidateReason.INVALIDATED));
      release.countDown();

      await().atMost(Duration.ofSeconds(10)).until(() -> sent.size() == 4);
      assertThat(sent.get(1)).isEqualTo(new SessionUpdate.Delta("a", 1, 0, 2, META, Map.of(), Set.of("x0", "x1")));
      assertThat(sent.get(2)).isEqualTo(delta("b", 0));
      assertThat(sent.get(3)).isInstanceOf(Message.Invalidate.class);
    } finally {
      outbox.close();
    }
  }
}
