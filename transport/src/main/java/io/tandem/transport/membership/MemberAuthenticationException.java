package io.tandem.transport.membership;

/** This node could prove the shared secret to none of the members already running: its secret differs from theirs. */
public final class MemberAuthenticationException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  public MemberAuthenticationException(String message) {
    super(message);
  }
}
