package io.tandem.core.testing;

import io.tandem.core.spi.Member;
import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.RequestHandler;
import io.tandem.core.spi.Transport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

class InMemoryTransportContractTest extends TransportContract {
  @Override
  protected Fixture newFixture() {
    InMemoryNetwork network = new InMemoryNetwork();
    List<Transport> started = new ArrayList<>();
    return new Fixture() {
      @Override
      public Transport start(NodeId id, RequestHandler handler) {
        InMemoryTransport transport = network.transport(id, Duration.ofMillis(300));
        transport.start(handler);
        started.add(transport);
        List<Member> members = started.stream().map(t -> new Member(t.localNode(), t.localAddress())).toList();
        started.forEach(t -> t.updatePeers(new MembershipView(started.size(), members)));
        return transport;
      }

      @Override
      public void kill(NodeId id) {
        network.crash(id);
      }

      @Override
      public void close() {
        started.forEach(Transport::close);
        network.close();
      }
    };
  }
}
