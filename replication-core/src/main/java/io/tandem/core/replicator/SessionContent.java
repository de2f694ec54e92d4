package io.tandem.core.replicator;

import io.tandem.core.codec.AttributeCodec;
import io.tandem.core.session.Blob;
import io.tandem.core.session.EncodedValue;
import io.tandem.core.session.ImmutableTypes;
import io.tandem.core.session.SessionMetadata;
import io.tandem.core.session.SessionSnapshot;
import io.tandem.core.session.SessionSource;
import java.util.Optional;
import java.util.Set;

/**
 * Where an owned session's state lives: in the container as objects ({@link Live}), or still as bytes because it
 * was adopted from a dead owner and no request has needed it yet ({@link Stored}). A stored session is replicated
 * without ever being deserialized.
 */
sealed interface SessionContent {

  SessionMetadata metadata();

  Set<String> attributeNames();

  /** The attribute's bytes, or empty when it does not exist. */
  Optional<Blob> encode(String name, AttributeCodec codec);

  /** Whether the value is provably immutable, so that reading it cannot hide an in-place change. */
  boolean isImmutable(String name, ImmutableTypes types);

  /** The class of the attribute's value, for messages; null when it does not exist or is only held as bytes. */
  String className(String name);

  record Live(SessionSource source) implements SessionContent {
    @Override
    public SessionMetadata metadata() {
      return source.metadata();
    }

    @Override
    public Set<String> attributeNames() {
      return source.attributeNames();
    }

    @Override
    public Optional<Blob> encode(String name, AttributeCodec codec) {
      Object value = source.attribute(name);
      if (value instanceof EncodedValue encoded) {
        return Optional.of(encoded.bytes()); // never decoded since the takeover: replicated as it came
      }
      return value == null ? Optional.empty() : Optional.of(codec.encode(value));
    }

    @Override
    public boolean isImmutable(String name, ImmutableTypes types) {
      Object value = source.attribute(name);
      // Still encoded: the application has never held the object, so it cannot have changed it in place.
      return value instanceof EncodedValue || types.isImmutable(value);
    }

    @Override
    public String className(String name) {
      Object value = source.attribute(name);
      return value == null ? null : value instanceof EncodedValue ? "(not decoded yet)" : value.getClass().getName();
    }
  }

  record Stored(SessionSnapshot snapshot) implements SessionContent {
    @Override
    public SessionMetadata metadata() {
      return snapshot.metadata();
    }

    @Override
    public Set<String> attributeNames() {
      return snapshot.attributes().keySet();
    }

    @Override
    public Optional<Blob> encode(String name, AttributeCodec codec) {
      return Optional.ofNullable(snapshot.attributes().get(name));
    }

    @Override
    public boolean isImmutable(String name, ImmutableTypes types) {
      return true;
    }

    @Override
    public String className(String name) {
      return null;
    }
  }
}
