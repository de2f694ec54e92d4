package io.tandem.core.wire;

import io.tandem.core.session.Blob;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Reads big-endian fields from one payload. Every length is checked against the bytes actually remaining before
 * anything is allocated, so a hostile length can never make the reader allocate more than the frame it came in.
 */
final class WireReader {
  private final ByteBuffer in;

  WireReader(ByteBuffer payload) {
    this.in = payload;
  }

  int remaining() {
    return in.remaining();
  }

  private void need(long n, String what) {
    if (n < 0 || n > in.remaining()) {
      throw new MalformedMessageException(what + " needs " + n + " bytes but only " + in.remaining() + " remain");
    }
  }

  int u8(String what) {
    need(1, what);
    return in.get() & 0xff;
  }

  boolean bool(String what) {
    int v = u8(what);
    if (v > 1) {
      throw new MalformedMessageException(what + " must be 0 or 1, got " + v);
    }
    return v == 1;
  }

  int i32(String what) {
    need(4, what);
    return in.getInt();
  }

  long i64(String what) {
    need(8, what);
    return in.getLong();
  }

  /** A count of elements that each take at least {@code minElementBytes}; checked against the bytes left. */
  int count(String what, int minElementBytes) {
    int n = i32(what);
    if (n < 0 || (long) n * minElementBytes > in.remaining()) {
      throw new MalformedMessageException(what + " count " + n + " cannot fit in the " + in.remaining() + " bytes left");
    }
    return n;
  }

  byte[] bytes(String what) {
    int n = i32(what + " length");
    need(n, what);
    byte[] b = new byte[n];
    in.get(b);
    return b;
  }

  Blob blob(String what) {
    return Blob.wrap(bytes(what));
  }

  String string(String what) {
    byte[] b = bytes(what);
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(b))
          .toString();
    } catch (CharacterCodingException e) {
      throw new MalformedMessageException(what + " is not valid UTF-8");
    }
  }

  String nullableString(String what) {
    return bool(what + " presence") ? string(what) : null;
  }

  Blob nullableBlob(String what) {
    return bool(what + " presence") ? blob(what) : null;
  }

  <E extends Enum<E>> E enumValue(Class<E> type, String what) {
    int ordinal = u8(what);
    E[] values = type.getEnumConstants();
    if (ordinal >= values.length) {
      throw new MalformedMessageException(what + " ordinal " + ordinal + " is not a " + type.getSimpleName());
    }
    return values[ordinal];
  }

  void expectEnd(String what) {
    if (in.hasRemaining()) {
      throw new MalformedMessageException(what + " has " + in.remaining() + " unexpected trailing bytes");
    }
  }
}
