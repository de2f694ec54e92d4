package io.tandem.core.replicator;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.core.codec.CodecKind;
import io.tandem.core.config.MutationPolicy;
import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.config.ReplicationMode;
import io.tandem.core.config.ReplicationScope;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Full-session scopes send the whole session without re-serializing it: an attribute the request neither set nor read
 * travels as its last bytes, and one it read (and could have changed in place) is serialized again whatever the
 * mutation policy. The test changes a list in place behind the session's back to tell the two apart.
 */
class FullScopeByteReuseTest {
  private EngineCluster cluster;

  @AfterEach
  void close() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private EngineCluster.Node owner(ReplicationScope scope, MutationPolicy policy) throws Exception {
    ReplicationConfig config = ReplicationConfig.builder().scope(scope).codec(CodecKind.KRYO).mode(ReplicationMode.SYNC)
        .mutationPolicy(policy).ackTimeout(Duration.ofSeconds(2)).maintenanceInterval(Duration.ofHours(1)).build();
    cluster = new EngineCluster(config, "n1", "n2");
    return cluster.node("n1");
  }

  @ParameterizedTest
  @EnumSource(value = ReplicationScope.class, names = {"SESSION", "MODIFIED_SESSION"})
  void anAttributeNeitherSetNorRead_goesAsItsLastBytes_andOneReadIsSerializedAgain_evenWithSetOnly(ReplicationScope scope)
      throws Exception {
    EngineCluster.Node owner = owner(scope, MutationPolicy.SET_ONLY);
    owner.create("s1");
    List<String> cart = new ArrayList<>(List.of("book"));
    owner.request("s1", (s, reads) -> {
      s.setAttribute("cart", cart);
      s.setAttribute("step", 1);
    });

    cart.add("pen"); // in place, and no request reads it
    owner.request("s1", (s, reads) -> s.setAttribute("step", 2));
    assertThat(cluster.node("n2").backup("s1")).as("cart was not read: its bytes are reused")
        .contains(Map.of("cart", List.of("book"), "step", 2));

    owner.request("s1", (s, reads) -> {
      s.getAttribute("cart", reads);
      s.setAttribute("step", 3);
    });
    assertThat(cluster.node("n2").backup("s1")).as("cart was read and may have changed: serialized again")
        .contains(Map.of("cart", List.of("book", "pen"), "step", 3));
  }

  @ParameterizedTest
  @EnumSource(value = ReplicationScope.class, names = {"SESSION", "MODIFIED_SESSION"})
  void aRemovedAttribute_leavesNoBytesBehind_andASetOneIsSerializedAfresh(ReplicationScope scope) throws Exception {
    EngineCluster.Node owner = owner(scope, MutationPolicy.READ_MARKS_DIRTY);
    owner.create("s1");
    owner.request("s1", (s, reads) -> s.setAttribute("a", "first"));
    owner.request("s1", (s, reads) -> s.removeAttribute("a"));
    owner.request("s1", (s, reads) -> s.setAttribute("b", "x"));
    assertThat(cluster.node("n2").backup("s1")).contains(Map.of("b", "x"));

    owner.request("s1", (s, reads) -> s.setAttribute("a", "second"));
    assertThat(cluster.node("n2").backup("s1")).contains(Map.of("a", "second", "b", "x"));
  }
}
