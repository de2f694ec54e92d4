package io.tandem.transport.grizzly;

import io.tandem.core.spi.NodeId;
import org.glassfish.grizzly.filterchain.FilterChainBuilder;
import org.glassfish.grizzly.filterchain.TransportFilter;
import org.glassfish.grizzly.nio.transport.TCPNIOTransport;
import org.glassfish.grizzly.nio.transport.TCPNIOTransportBuilder;
import org.glassfish.grizzly.ssl.SSLEngineConfigurator;
import org.glassfish.grizzly.ssl.SSLFilter;
import org.glassfish.grizzly.strategies.SameThreadIOStrategy;

/**
 * Builds the Grizzly TCP NIO transport a {@link GrizzlyTransport} runs on: the filter chain (TLS when configured,
 * then {@link TandemFilter}) and two selector threads that also run the filters ({@code SameThreadIOStrategy}: a
 * frame is decoded and applied where it was read, no hand-off), with Nagle off so that a lone acknowledgement is not
 * held back.
 *
 * <p>Implementation notes: stateless.
 */
final class NioStack {
  private NioStack() {}

  static TCPNIOTransport build(GrizzlyTransportConfig config, NodeId local, TandemFilter filter) {
    FilterChainBuilder chain = FilterChainBuilder.stateless().add(new TransportFilter());
    if (config.tls() != null) {
      SSLEngineConfigurator server = new SSLEngineConfigurator(config.tls(), false, true, true);
      SSLEngineConfigurator client = new SSLEngineConfigurator(config.tls(), true, false, false);
      chain.add(new SSLFilter(server, client));
    }
    chain.add(filter);
    return TCPNIOTransportBuilder.newInstance()
        .setName("tandem-transport-" + local.value())
        .setIOStrategy(SameThreadIOStrategy.getInstance())
        .setSelectorRunnersCount(2)
        .setTcpNoDelay(true)
        .setReuseAddress(true)
        .setProcessor(chain.build())
        .build();
  }
}
