package io.tandem.transport.membership;

/**
 * None of the members already running admitted this node: its shared secret differs from theirs, or it shares no
 * protocol version with them (the message says which, member by member).
 */
public final class MemberAuthenticationException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  public MemberAuthenticationException(String message) {
    super(message);
  }
}
