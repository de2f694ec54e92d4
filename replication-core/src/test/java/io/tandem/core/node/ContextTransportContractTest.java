package io.tandem.core.node;

import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.Scheduler;
import io.tandem.core.spi.Transport;
import io.tandem.core.testing.InMemoryCluster;
import io.tandem.core.testing.InMemoryNetwork;
import io.tandem.core.testing.TransportContract;
import io.tandem.core.testing.TransportFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A context's view of a node's shared transport keeps the transport contract the engine relies on (order per peer,
 * every future completes, a handler that throws fails the request): the engine runs on it unchanged. Each node here
 * runs one node runtime over an in-memory transport, and the context is its one application.
 */
class ContextTransportContractTest extends TransportContract {

  @Override
  protected TransportFixture newFixture(Duration requestTimeout) {
    InMemoryNetwork network = new InMemoryNetwork();
    InMemoryCluster cluster = new InMemoryCluster();
    List<NodeRuntime> runtimes = new ArrayList<>();
    return new TransportFixture(requestTimeout) {
      @Override
      protected Transport createTransport(NodeId id, Duration timeout) throws Exception {
        Transport shared = network.transport(id, timeout);
        NodeRuntime runtime = new NodeRuntime(shared, cluster.join(id, shared.localAddress()),
            Scheduler.singleThread("tandem-contexts-" + id.value()), 1, Duration.ofSeconds(5));
        runtime.start();
        runtimes.add(runtime);
        return runtime.transportFor("/contract", timeout);
      }

      @Override
      public void kill(NodeId id) {
        network.crash(id);
      }

      @Override
      protected void closeResources() {
        runtimes.forEach(NodeRuntime::close);
        network.close();
        cluster.close();
      }
    };
  }
}
