package io.tandem.core.spi;

/**
 * The peer runs no application of the request's context: it holds nothing of it and acknowledges nothing for it. A
 * write refused so is not stored anywhere; the engine treats it as any failed send (the session is unprotected and
 * re-sent to the buddy of the next view), and the peer leaves the context's view.
 */
public final class ContextNotDeployedException extends TransportException {
  private static final long serialVersionUID = 1L;
  private final String context;

  public ContextNotDeployedException(NodeId peer, String context, String detail) {
    super(peer, "peer " + peer + " runs no context [" + context + "]: " + detail, null);
    this.context = context;
  }

  public String context() {
    return context;
  }
}
