package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.config.ReplicationConfig;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * Regression test for a session lost while the heir adopted it (the rolling-upgrade drill in a fresh-clone CI run:
 * "write 102 on n3 found seq -1 after write 93 was acknowledged by n2"). Adopting a dead owner's backup took the copy
 * out of the store, then added the session to the owned ones: a request for it on the heir that looked in between found
 * it in neither place, asked the cluster, was told "nowhere", and the user got a new, empty session. Now the session is
 * owned before its copy leaves the store.
 *
 * <p>The request lands exactly in that window: it runs (on its own thread) when the heir's adoption is about to add
 * the session to the owned ones, and the adoption waits for it.
 */
class RequestDuringTheHeirsAdoptionTest {
  private static final Duration AWAIT = Duration.ofSeconds(10);
  @AutoClose
  private EngineCluster cluster;

  @Test
  void requestOnTheHeirWhileItAdoptsTheDeadOwnersBackup_findsTheSession_neverNowhere() throws Exception {
    cluster = new EngineCluster(ReplicationConfig.builder().ackTimeout(Duration.ofMillis(300))
        .maintenanceInterval(Duration.ofHours(1)).build(), "n1", "n2", "n3");
    EngineCluster.Node n3 = cluster.node("n3");
    EngineCluster.Node n1 = cluster.node("n1");
    n3.create("s");
    assertThat(n3.request("s", (s, reads) -> s.setAttribute("seq", 93))).isEqualTo(FlushOutcome.REPLICATED);
    await().atMost(AWAIT).until(() -> n1.backup("s").isPresent()); // n3's buddy, and heir, is n1

    AtomicBoolean requested = new AtomicBoolean();
    AtomicReference<Acquisition> duringAdoption = new AtomicReference<>();
    cluster.index("n1").beforeAdd = id -> {
      if (id.equals("s") && requested.compareAndSet(false, true)) {
        // The adoption is about to add the session: a request for it on n1 looks now, and the adoption waits for it.
        duringAdoption.set(CompletableFuture.supplyAsync(() -> n1.engine.acquire("s", "n3")).orTimeout(5, TimeUnit.SECONDS).join());
      }
    };
    cluster.kill("n3");
    cluster.crash("n3"); // the view drops n3: n1 adopts its backups
    await().atMost(AWAIT).until(() -> n1.engine.owns("s"));

    assertThat(requested).as("the request landed while n1 adopted the session").isTrue();
    Acquisition acquired = duringAdoption.get();
    assertThat(acquired.snapshot()).as("a request during the adoption: " + acquired).isPresent();
    assertThat(n1.decode(acquired.snapshot().get())).isEqualTo(Map.of("seq", 93));
  }
}
