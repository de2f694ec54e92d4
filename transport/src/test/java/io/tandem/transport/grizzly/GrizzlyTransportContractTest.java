package io.tandem.transport.grizzly;

import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.Transport;
import io.tandem.core.testing.TransportContract;
import io.tandem.core.testing.TransportFixture;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** Core's transport contract over real loopback sockets. */
class GrizzlyTransportContractTest extends TransportContract {
  static final byte[] SECRET = "contract-test-shared-secret".getBytes(StandardCharsets.UTF_8);

  @Override
  protected TransportFixture newFixture(Duration requestTimeout) {
    return new TransportFixture(requestTimeout) {
      @Override
      protected Transport createTransport(NodeId id, Duration timeout) {
        return new GrizzlyTransport(GrizzlyTransportConfig.loopback("contract", id, SECRET, timeout));
      }
    };
  }
}
