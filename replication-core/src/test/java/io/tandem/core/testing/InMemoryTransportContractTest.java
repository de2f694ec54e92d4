package io.tandem.core.testing;

import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.Transport;
import java.time.Duration;

/** The in-memory transport keeps the transport contract, so engine tests on it mean something. */
class InMemoryTransportContractTest extends TransportContract {

  @Override
  protected TransportFixture newFixture(Duration requestTimeout) {
    InMemoryNetwork network = new InMemoryNetwork();
    return new TransportFixture(requestTimeout) {
      @Override
      protected Transport createTransport(NodeId id, Duration timeout) {
        return network.transport(id, timeout);
      }

      @Override
      public void kill(NodeId id) {
        network.crash(id);
      }

      @Override
      protected void closeResources() {
        network.close();
      }
    };
  }
}
