package io.tandem.core.replicator;

import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.Ticker;
import io.tandem.core.spi.Waiter;
import io.tandem.core.spi.Transport;
import io.tandem.core.wire.Message;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * Asks every other member of the current view, at once, who holds a session. Stateless; blocks the calling thread
 * for at most one ack timeout.
 */
final class Locator {
  private final NodeId local;
  private final Transport transport;
  private final Supplier<MembershipView> view;
  private final Duration ackTimeout;
  private final Ticker ticker;
  private final Waiter waiter;

  Locator(NodeId local, Transport transport, Supplier<MembershipView> view, Duration ackTimeout, Ticker ticker, Waiter waiter) {
    this.local = local;
    this.transport = transport;
    this.view = view;
    this.ackTimeout = ackTimeout;
    this.ticker = ticker;
    this.waiter = waiter;
  }

  /**
   * The node a session id's route names ({@code route}, the jvmRoute of the node that last served it), to be asked
   * first; empty when there is none or it is not a valid node id.
   */
  static Optional<NodeId> routeHint(String route) {
    if (route == null || route.isEmpty() || route.length() > NodeId.MAX_LENGTH) {
      return Optional.empty();
    }
    try {
      return Optional.of(new NodeId(route));
    } catch (IllegalArgumentException notANodeId) {
      return Optional.empty(); // a forged route: no hint, the lookup asks every member
    }
  }

  /**
   * What the members said.
   *
   * @param replies the answers that came within the ack timeout, by member
   * @param silent the members that failed to answer or stayed silent
   */
  record Answers(Map<NodeId, Message.LocateReply> replies, Set<NodeId> silent) {}

  Answers ask(String id) {
    MembershipView current = view.get();
    Map<NodeId, Message.LocateReply> answers = new LinkedHashMap<>();
    Set<NodeId> silent = new LinkedHashSet<>();
    if (current == null) {
      return new Answers(answers, silent);
    }
    Map<NodeId, CompletableFuture<Message>> asked = new LinkedHashMap<>();
    for (NodeId member : current.memberIds()) {
      if (!member.equals(local)) {
        asked.put(member, transport.request(member, new Message.Locate(id)));
      }
    }
    long deadline = ticker.read() + ackTimeout.toNanos();
    for (Map.Entry<NodeId, CompletableFuture<Message>> reply : asked.entrySet()) {
      try {
        Message answer = waiter.await(reply.getValue(), Math.max(0, deadline - ticker.read()));
        if (answer instanceof Message.LocateReply found) {
          answers.put(reply.getKey(), found);
        } else {
          silent.add(reply.getKey());
        }
      } catch (ExecutionException | TimeoutException e) {
        silent.add(reply.getKey());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        silent.addAll(asked.keySet());
        silent.removeAll(answers.keySet());
        return new Answers(answers, silent);
      }
    }
    return new Answers(answers, silent);
  }
}
