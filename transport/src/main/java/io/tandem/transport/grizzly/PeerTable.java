package io.tandem.transport.grizzly;

import io.tandem.core.logging.RateLimitedLog;
import io.tandem.core.spi.Member;
import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;

/**
 * Every {@link Peer} this transport knows, by node id: the members of the view, and any peer that authenticated. A
 * view change records where members listen, lets those that left go (failing what waits for them) and names the
 * peers this node should dial: one connection per pair of members, dialed by the member with the lower id, so the
 * two never race to open two.
 *
 * <p>Implementation notes: {@code peers} is a concurrent map, added to and never removed from (a peer's own lock
 * guards its state, see {@link Peer}); bounded by the members and authenticated peers over the transport's life.
 * Only authenticated peers and members of a view get an entry: a connection that has not proven the secret never
 * creates one.
 */
final class PeerTable {
  private final NodeId local;
  private final GrizzlyTransportConfig config;
  private final RateLimitedLog log;
  private final TransportThreads threads;
  private final Map<NodeId, Peer> peers = new ConcurrentHashMap<>();

  PeerTable(GrizzlyTransportConfig config, RateLimitedLog log, TransportThreads threads) {
    this.local = config.localNode();
    this.config = config;
    this.log = log;
    this.threads = threads;
  }

  /** The peer, or null if it is neither a member nor authenticated. */
  Peer get(NodeId id) {
    return peers.get(id);
  }

  /** For a peer that proved the secret. */
  Peer authenticated(NodeId id) {
    return peers.computeIfAbsent(id, Peer::new);
  }

  Collection<Peer> all() {
    return peers.values();
  }

  /** The peer this node is connecting to at {@code address}, or null. */
  Peer dialing(SocketAddress address) {
    for (Peer peer : peers.values()) {
      if (peer.dial.connecting(address)) {
        return peer;
      }
    }
    return null;
  }

  /**
   * Applies a view; returns the members this node dials that have no ready connection. A member that left fails the
   * requests waiting for it; its connection carries no new request but stays open for the replies it owes.
   */
  List<Peer> apply(MembershipView view) {
    for (Member member : view.members()) {
      if (!member.id().equals(local)) {
        // a member back in the view gets its kept connection back in the same step (see Peer.joined)
        address(member).ifPresent(a -> peers.computeIfAbsent(member.id(), Peer::new).joined(a));
      }
    }
    List<Peer> members = new ArrayList<>();
    for (Peer peer : peers.values()) {
      if (view.contains(peer.id)) {
        if (peer.address() != null) {
          members.add(peer);
        }
        continue;
      }
      Peer.Departure departure = peer.left();
      if (departure != null) {
        if (departure.connection() != null) {
          closeWhenAnswered(departure.connection());
        }
        WaitingRequests.failAll(departure.waiting(), peer.id, "no longer a member");
      }
    }
    List<Peer> toDial = new ArrayList<>();
    for (Peer peer : members) {
      if (local.compareTo(peer.id) < 0 && peer.readyWithoutLock() == null) {
        toDial.add(peer);
      }
    }
    return toDial;
  }

  /**
   * A member left the view: nothing new is sent to it, but requests already sent get their replies, up to the
   * request timeout. A view can drop a live peer for a moment (this node was paused, or the membership flapped),
   * and a reply lost that way can be costly: a migrated session's only copy travels in one.
   */
  private void closeWhenAnswered(PeerConnection connection) {
    if (connection.pending.isEmpty()) {
      connection.connection.closeSilently();
      return;
    }
    try {
      threads.schedule(() -> connection.connection.closeSilently(), config.requestTimeout().toMillis());
    } catch (RejectedExecutionException e) {
      connection.connection.closeSilently(); // the transport is closing: no reply would be read now
    }
  }

  /** Where {@code member} listens, or empty (logged) when its advertised address is not {@code host:port}. */
  Optional<InetSocketAddress> address(Member member) {
    String address = member.transportAddress();
    int colon = address.lastIndexOf(':');
    try {
      return Optional.of(new InetSocketAddress(address.substring(0, colon), Integer.parseInt(address.substring(colon + 1))));
    } catch (RuntimeException e) {
      log.warn("address:" + member.id(), "Member " + member.id().value() + " advertises '" + address + "', which is not host:port");
      return Optional.empty();
    }
  }

  /** The ready connection to {@code id}, or null. */
  PeerConnection ready(NodeId id) {
    Peer peer = peers.get(id);
    return peer == null ? null : peer.readyWithoutLock();
  }

  OptionalInt protocolVersion(NodeId id) {
    PeerConnection connection = ready(id);
    return connection == null ? OptionalInt.empty() : OptionalInt.of(connection.protocolVersion());
  }

  /** The version spoken on each ready connection, by peer. */
  Map<NodeId, Integer> protocolVersions() {
    Map<NodeId, Integer> spoken = new TreeMap<>();
    for (Peer peer : peers.values()) {
      PeerConnection connection = peer.readyWithoutLock();
      if (connection != null) {
        spoken.put(peer.id, connection.protocolVersion());
      }
    }
    return spoken;
  }
}
