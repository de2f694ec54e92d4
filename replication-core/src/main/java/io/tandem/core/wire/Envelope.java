package io.tandem.core.wire;

import java.util.Objects;

/**
 * A message as it travels in a frame: with the correlation id that pairs a response with its request.
 *
 * @param response whether this frame answers the request with the same correlation id
 */
public record Envelope(long correlationId, boolean response, Message message) {
  public Envelope {
    Objects.requireNonNull(message, "message");
  }
}
