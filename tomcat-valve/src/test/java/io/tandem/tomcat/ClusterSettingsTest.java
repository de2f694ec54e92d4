package io.tandem.tomcat;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.core.spi.NodeId;
import io.tandem.transport.grizzly.GrizzlyTransportConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ClusterSettingsTest {
  private static Map<String, String> valid() {
    Map<String, String> attributes = new HashMap<>();
    attributes.put("transportPort", "4100");
    attributes.put("membershipPort", "5701");
    attributes.put("members", "127.0.0.1:5701");
    attributes.put("sharedSecret", "a-shared-secret-long-enough");
    return attributes;
  }

  /** Issue "Hostile network", item 5: a negative maxQueuedBytesPerPeer was accepted. */
  @Test
  void parse_negativeOrMalformedNumbers_areEachReportedWithTheAllowedRange() {
    Map<String, String> attributes = valid();
    attributes.put("maxQueuedBytesPerPeer", "-1");
    attributes.put("maxUnauthenticatedConnections", "0");
    attributes.put("handshakeTimeout", "0ms");
    attributes.put("stalledFrameTimeout", "soon");
    List<String> violations = new ArrayList<>();

    ClusterSettings.parse(attributes, "n1", violations);

    assertThat(violations).hasSize(4);
    assertThat(violations).anySatisfy(v -> assertThat(v).startsWith("maxQueuedBytesPerPeer: '-1' must be a whole number between 65536"));
    assertThat(violations).anySatisfy(v -> assertThat(v).startsWith("maxUnauthenticatedConnections: '0'"));
    assertThat(violations).anySatisfy(v -> assertThat(v).startsWith("handshakeTimeout: '0ms' must be a duration between 100ms and 5m"));
    assertThat(violations).anySatisfy(v -> assertThat(v).startsWith("stalledFrameTimeout: 'soon'"));
  }

  @Test
  void parse_unitsAccepted_andPassedToTheTransport() {
    Map<String, String> attributes = valid();
    attributes.put("maxQueuedBytesPerPeer", "128MiB");
    attributes.put("handshakeTimeout", "2s");
    List<String> violations = new ArrayList<>();

    ClusterSettings settings = ClusterSettings.parse(attributes, "n1", violations);
    GrizzlyTransportConfig transport = settings.transportConfig(new NodeId("n1"), Duration.ofMillis(500), 32 << 20, null);

    assertThat(violations).isEmpty();
    assertThat(transport.maxQueuedBytesPerPeer()).isEqualTo(128L << 20);
    assertThat(transport.handshakeTimeout()).isEqualTo(Duration.ofSeconds(2));
    assertThat(transport.maxUnauthenticatedConnections()).isEqualTo(GrizzlyTransportConfig.DEFAULT_MAX_UNAUTHENTICATED_CONNECTIONS);
    assertThat(settings.toString()).contains("handshakeTimeout=2s").doesNotContain("a-shared-secret");
  }

  /** Issue "Hostile network", item 5: the unknown-setting error listed no valid settings. */
  @Test
  void unknownAttributeViolations_listTheValidAttributes() {
    Map<String, String> attributes = valid();
    attributes.put("colour", "blue");

    assertThat(ClusterSettings.unknownAttributeViolations(attributes, Set.of("scope", "mode")))
        .singleElement().asString()
        .startsWith("colour: unknown attribute; valid attributes are ")
        .contains("handshakeTimeout", "scope", "sharedSecret", "replicationFilter");
  }
}
