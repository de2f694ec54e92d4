package io.tandem.core.testing;

import io.tandem.core.spi.Member;
import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.RequestHandler;
import io.tandem.core.spi.Transport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Makes connected transports for {@link TransportContract}. An implementation only says how to create one
 * transport and, if it can do better than closing it, how to kill one; starting them and telling every transport
 * where the others listen is done here, the way the engine does it: one view with every member's real {@link
 * Transport#localAddress()}.
 *
 * <p>Implementation notes: used from the test thread only; not thread-safe.
 */
public abstract class TransportFixture implements AutoCloseable {
  private final Duration requestTimeout;
  private final Map<NodeId, Transport> transports = new LinkedHashMap<>();
  private MembershipView view = new MembershipView(0, List.of());

  protected TransportFixture(Duration requestTimeout) {
    this.requestTimeout = Objects.requireNonNull(requestTimeout, "requestTimeout");
  }

  /** A new, not yet started transport for {@code id} that gives up on a reply after {@code requestTimeout}. */
  protected abstract Transport createTransport(NodeId id, Duration requestTimeout) throws Exception;

  /**
   * Stops {@code id} abruptly, the way a crash would, so that requests to it fail with {@code
   * PeerUnreachableException}. The default closes its transport; override to simulate something harsher.
   */
  public void kill(NodeId id) {
    transport(id).close();
  }

  /** Releases what the fixture holds besides the transports (servers, event loops, a network). */
  protected void closeResources() {}

  public final Duration requestTimeout() {
    return requestTimeout;
  }

  /**
   * Creates and starts one transport per entry, in iteration order, then gives every transport (old and new) a
   * view of all members with their addresses. May be called more than once to add nodes.
   */
  public final Map<NodeId, Transport> start(Map<NodeId, RequestHandler> handlers) throws Exception {
    Map<NodeId, Transport> started = new LinkedHashMap<>();
    for (Map.Entry<NodeId, RequestHandler> entry : handlers.entrySet()) {
      if (transports.containsKey(entry.getKey())) {
        throw new IllegalStateException("node " + entry.getKey() + " already started");
      }
      Transport transport = createTransport(entry.getKey(), requestTimeout);
      transports.put(entry.getKey(), transport);
      transport.start(entry.getValue());
      started.put(entry.getKey(), transport);
    }
    List<Member> members = new ArrayList<>();
    transports.forEach((id, t) -> members.add(new Member(id, t.localAddress())));
    view = new MembershipView(view.viewId() + 1, members);
    for (Transport transport : transports.values()) {
      transport.updatePeers(view);
    }
    return Collections.unmodifiableMap(started);
  }

  public final Transport transport(NodeId id) {
    Transport transport = transports.get(id);
    if (transport == null) {
      throw new IllegalArgumentException("no transport for " + id);
    }
    return transport;
  }

  /** The last view given to the transports. */
  public final MembershipView view() {
    return view;
  }

  @Override
  public final void close() {
    try {
      for (Transport transport : transports.values()) {
        transport.close();
      }
    } finally {
      closeResources();
    }
  }
}
