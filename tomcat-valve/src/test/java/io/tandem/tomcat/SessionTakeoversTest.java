package io.tandem.tomcat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.catalina.Session;
import org.apache.catalina.session.StandardManager;
import org.apache.catalina.session.StandardSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SessionTakeoversTest {
  private final SessionTakeovers takeovers = new SessionTakeovers();
  private final ExecutorService requests = Executors.newFixedThreadPool(4);

  @AfterEach
  void stop() {
    requests.shutdownNow();
  }

  @Test
  void requestsArrivingDuringATakeover_waitForIt_andGetItsSession() throws Exception {
    Session taken = new StandardSession(new StandardManager());
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger runs = new AtomicInteger();
    SessionTakeovers.Takeover slow = () -> {
      runs.incrementAndGet();
      started.countDown();
      block(release);
      return SessionTakeovers.Result.found(taken);
    };

    Future<SessionTakeovers.Result> first = requests.submit(() -> takeovers.once("S1", slow));
    assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
    Future<SessionTakeovers.Result> second = waitingFor("S1", slow);
    Future<SessionTakeovers.Result> third = waitingFor("S1", slow);
    release.countDown();

    assertThat(first.get(10, TimeUnit.SECONDS).session()).isSameAs(taken);
    assertThat(second.get(10, TimeUnit.SECONDS).session()).isSameAs(taken);
    assertThat(third.get(10, TimeUnit.SECONDS).session()).isSameAs(taken);
    assertThat(runs).hasValue(1);
    assertThat(takeovers.inProgress()).isZero();
  }

  @Test
  void differentSessions_areTakenOverSideBySide() throws Exception {
    CountDownLatch bothRunning = new CountDownLatch(2);
    SessionTakeovers.Takeover meetTheOther = () -> {
      bothRunning.countDown();
      block(bothRunning);
      return SessionTakeovers.Result.found(new StandardSession(new StandardManager()));
    };

    Future<SessionTakeovers.Result> a = requests.submit(() -> takeovers.once("A", meetTheOther));
    Future<SessionTakeovers.Result> b = requests.submit(() -> takeovers.once("B", meetTheOther));

    assertThat(a.get(15, TimeUnit.SECONDS).session()).isNotNull();
    assertThat(b.get(15, TimeUnit.SECONDS).session()).isNotNull();
  }

  @Test
  void aFailedTakeover_failsItsWaitersWithTheCause_andTheNextRequestTriesAgain() throws Exception {
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    SessionTakeovers.Takeover failing = () -> {
      started.countDown();
      block(release);
      throw new IOException("peer n3 unreachable");
    };
    Future<SessionTakeovers.Result> first = requests.submit(() -> takeovers.once("S1", failing));
    assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
    Future<SessionTakeovers.Result> waiter = waitingFor("S1", () -> SessionTakeovers.Result.NOWHERE);
    release.countDown();

    assertThatThrownBy(() -> first.get(10, TimeUnit.SECONDS)).hasRootCauseMessage("peer n3 unreachable");
    assertThatThrownBy(() -> waiter.get(10, TimeUnit.SECONDS))
        .hasMessageContaining("taking over session S1 failed in another request")
        .hasRootCauseMessage("peer n3 unreachable");
    Session later = new StandardSession(new StandardManager());
    assertThat(takeovers.once("S1", () -> SessionTakeovers.Result.found(later)).session()).isSameAs(later);
  }

  /** A request for {@code id} submitted now, returned once its thread is blocked waiting for the running takeover. */
  private Future<SessionTakeovers.Result> waitingFor(String id, SessionTakeovers.Takeover takeover) {
    AtomicReference<Thread> thread = new AtomicReference<>();
    Future<SessionTakeovers.Result> request = requests.submit(() -> {
      thread.set(Thread.currentThread());
      return takeovers.once(id, takeover);
    });
    await().atMost(Duration.ofSeconds(10)).until(() -> thread.get() != null && thread.get().getState() == Thread.State.WAITING);
    return request;
  }

  private static void block(CountDownLatch latch) throws IOException {
    try {
      if (!latch.await(10, TimeUnit.SECONDS)) {
        throw new IOException("test latch not released");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
  }
}
