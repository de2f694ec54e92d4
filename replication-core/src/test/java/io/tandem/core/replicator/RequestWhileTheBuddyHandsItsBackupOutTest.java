package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.backup.BackupStore;
import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.spi.NodeId;
import io.tandem.core.wire.Message;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * Regression test for the window 11.3.15 closed in adoption, in the other place a copy left the store before the
 * session was anywhere else on its node: a buddy handing its backup to a member that asked ({@code Migrate}) took the
 * copy out of its store and then recorded the handover. A request for the session on that buddy in between found
 * neither, asked the cluster (the requester had not installed the answer yet) and was told "nowhere": a new, empty
 * session. Now the handover is recorded first (a request is answered 503 while it is undecided), and the copy is
 * handed out only if it is still there; promoted by such a request meanwhile, the asker is told to ask again.
 *
 * <p>n3 owns "s" and is killed (its host refuses redials: n1, its buddy, suspects it while the view still lists it);
 * n2 asks n1 for the session; a request on n1 looks for it at the first step of the hand-out that reads the clock.
 */
class RequestWhileTheBuddyHandsItsBackupOutTest {
  private static final Duration AWAIT = Duration.ofSeconds(20);
  @AutoClose
  private EngineCluster cluster;

  @Test
  void requestOnTheBuddyWhileItHandsTheBackupOut_findsTheSession_andTheAskerIsNotHandedASecondCopy() throws Exception {
    cluster = new EngineCluster(ReplicationConfig.builder().ackTimeout(Duration.ofMillis(300))
        .maintenanceInterval(Duration.ofHours(1)).build(), "n1", "n2", "n3");
    EngineCluster.Node n3 = cluster.node("n3");
    EngineCluster.Node n2 = cluster.node("n2");
    EngineCluster.Node n1 = cluster.node("n1");
    n3.create("s");
    assertThat(n3.request("s", (s, reads) -> s.setAttribute("seq", 7))).isEqualTo(FlushOutcome.REPLICATED);
    await().atMost(AWAIT).until(() -> n1.backup("s").isPresent()); // n3's buddy is n1
    cluster.kill("n3");
    Thread.sleep(300); // n1 finds n3 gone for replication; the view still lists it, so n1 has not adopted its copies

    ExecutorService requests = Executors.newSingleThreadExecutor(r -> new Thread(r, "request-on-n1"));
    AtomicBoolean migrating = new AtomicBoolean();
    AtomicBoolean looked = new AtomicBoolean();
    AtomicReference<Acquisition> meanwhile = new AtomicReference<>();
    cluster.onTickerRead("n1", () -> {
      // The thread that delivers n2's requests to n1 runs n1's handling of the Migrate; not from within the backup
      // store, whose tombstones read the clock under the session's stripe (the request would wait for it).
      if (migrating.get() && Thread.currentThread().getName().equals("tandem-inmem-n2-n1") && !inTheBackupStore()
          && looked.compareAndSet(false, true)) {
        // n1 is handing the copy out: a request for the session on n1 looks now, and the hand-out waits for it.
        meanwhile.set(CompletableFuture.supplyAsync(() -> n1.engine.acquire("s", "n3"), requests).orTimeout(8, TimeUnit.SECONDS)
            .exceptionally(failure -> Acquisition.unavailable("the request failed: " + failure)).join());
      }
    });
    migrating.set(true);
    CompletableFuture<Message> asked = n2.transport.request(new NodeId("n1"), new Message.Migrate("s", new NodeId("n2"), 0));
    // The hand-out waits for the request; past the transport's deadline the asker's own wait ends first.
    Message answer = asked.exceptionally(failure -> null).get(10, TimeUnit.SECONDS);
    await().atMost(AWAIT).until(looked::get);
    migrating.set(false);
    cluster.onTickerRead("n1", () -> { });
    requests.shutdown();

    await().atMost(AWAIT).until(() -> meanwhile.get() != null);
    Acquisition acquired = meanwhile.get();
    assertThat(acquired.snapshot()).as("a request during the hand-out: " + acquired).isPresent();
    assertThat(n1.decode(acquired.snapshot().get())).isEqualTo(Map.of("seq", 7));
    assertThat(answer).as("the asker is not handed the copy the request took over").isNotInstanceOf(Message.FullSession.class);
  }

  private static boolean inTheBackupStore() {
    return StackWalker.getInstance().walk(frames -> frames.anyMatch(f -> f.getClassName().equals(BackupStore.class.getName())));
  }
}
