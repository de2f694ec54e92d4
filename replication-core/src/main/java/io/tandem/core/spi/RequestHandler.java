package io.tandem.core.spi;

import io.tandem.core.wire.Message;
import java.util.concurrent.CompletionStage;

/** Answers one request from a peer. Called on a transport thread; must not block on the network. */
@FunctionalInterface
public interface RequestHandler {
  CompletionStage<Message> handle(NodeId from, Message request);
}
