package io.tandem.tomcat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Async requests replicate when they complete; requests matching the replication filter do not replicate. */
class RequestKindsIT extends TomcatClusterIT {

  private boolean backupHas(TomcatNode buddy, String attribute) {
    String id = cluster.sessionCookie();
    return buddy.manager().engine().backupOf(TandemManager.stripRoute(id))
        .map(b -> b.attributes().containsKey(attribute)).orElse(false);
  }

  @ParameterizedTest
  @ValueSource(strings = {"SESSION", "MODIFIED_SESSION", "MODIFIED_ATTRIBUTE"})
  void asyncRequest_replicatesWhatItSetAfterTheContainerThreadReturned(String scope) throws Exception {
    start(2, scope);
    TomcatNode n1 = cluster.node(0);
    TomcatNode n2 = cluster.node(1);
    cluster.get(n1, "/set?name=user&value=erin");

    assertThat(cluster.get(n1, "/async?name=late&value=yes")).isEqualTo("ok");

    await().atMost(Duration.ofSeconds(10)).until(() -> backupHas(n2, "late"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"SESSION", "MODIFIED_SESSION", "MODIFIED_ATTRIBUTE"})
  void filteredRequest_doesNotReplicate_theNextRequestCarriesItsChange(String scope) throws Exception {
    start(2, scope, "replicationFilter=\".*\\.css\"");
    TomcatNode n1 = cluster.node(0);
    TomcatNode n2 = cluster.node(1);
    cluster.get(n1, "/set?name=user&value=frank");
    await().atMost(Duration.ofSeconds(10)).until(() -> backupHas(n2, "user"));

    cluster.get(n1, "/skip.css?name=theme&value=dark");
    long replicatedBefore = n1.manager().getReplicationStats().fullsSent() + n1.manager().getReplicationStats().deltasSent();
    assertThat(backupHas(n2, "theme")).isFalse();

    cluster.get(n1, "/get?name=user");
    await().atMost(Duration.ofSeconds(10)).until(() -> backupHas(n2, "theme"));
    assertThat(n1.manager().getReplicationStats().fullsSent() + n1.manager().getReplicationStats().deltasSent()).isGreaterThan(replicatedBefore);
  }
}
