package io.tandem.core.wire;

import io.tandem.core.session.Blob;
import java.nio.ByteBuffer;

/**
 * Reads big-endian fields from one payload. Every length is checked against the bytes actually remaining before
 * anything is allocated, so a hostile length can never make the reader allocate more than the frame it came in.
 *
 * <p>Strings are decoded straight from the payload's array (strict UTF-8, see {@link Utf8}). Blobs are copied out
 * of the payload, except, when the reader may keep the payload's array, a blob larger than half of that array: it
 * becomes a range of it, so a large value is not copied a second time after the frame was assembled. At most one
 * blob per array can be that large, so a blob kept this way holds on to less than twice its own size.
 */
final class WireReader {
  private final ByteBuffer in;
  private final boolean mayKeepArray;

  /** A reader that copies every blob: the payload's array may change or be reused after decoding. */
  WireReader(ByteBuffer payload) {
    this(payload, false);
  }

  /**
   * @param mayKeepArray whether nobody will ever write to the payload's backing array again, so blobs may be
   *     ranges of it
   */
  WireReader(ByteBuffer payload, boolean mayKeepArray) {
    this.in = payload;
    this.mayKeepArray = mayKeepArray && payload.hasArray();
  }

  int remaining() {
    return in.remaining();
  }

  private void need(long n, String what) {
    need(n, what, "");
  }

  /**
   * @param suffix appended to {@code what} in the message: labels are joined only when a field is bad, not for every
   *     field read (a frame's decoding allocated a label string per length-prefixed field)
   */
  private void need(long n, String what, String suffix) {
    if (n < 0 || n > in.remaining()) {
      throw new MalformedMessageException(what + suffix + " needs " + n + " bytes but only " + in.remaining() + " remain");
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

  /** A length-prefixed field's length, checked against the bytes left. */
  private int length(String what) {
    need(4, what, " length");
    int n = in.getInt();
    need(n, what);
    return n;
  }

  Blob blob(String what) {
    int n = length(what);
    if (mayKeepArray && 2L * n > in.array().length) {
      Blob view = Blob.wrap(in.array(), in.arrayOffset() + in.position(), n);
      in.position(in.position() + n);
      return view;
    }
    byte[] b = new byte[n];
    in.get(b);
    return Blob.wrap(b);
  }

  String string(String what) {
    int n = length(what);
    String s;
    if (in.hasArray()) {
      s = Utf8.decode(in.array(), in.arrayOffset() + in.position(), n);
      in.position(in.position() + n);
    } else {
      byte[] b = new byte[n];
      in.get(b);
      s = Utf8.decode(b, 0, n);
    }
    if (s == null) {
      throw new MalformedMessageException(what + " is not valid UTF-8");
    }
    return s;
  }

  String nullableString(String what) {
    return presence(what) ? string(what) : null;
  }

  Blob nullableBlob(String what) {
    return presence(what) ? blob(what) : null;
  }

  private boolean presence(String what) {
    need(1, what, " presence");
    int v = in.get() & 0xff;
    if (v > 1) {
      throw new MalformedMessageException(what + " presence must be 0 or 1, got " + v);
    }
    return v == 1;
  }

  <E extends Enum<E>> E enumValue(Class<E> type, String what) {
    int ordinal = u8(what);
    E[] values = type.getEnumConstants();
    if (ordinal >= values.length) {
      throw new MalformedMessageException(what + " ordinal " + ordinal + " is not a " + type.getSimpleName());
    }
    return values[ordinal];
  }

  /**
   * {@link #enumValue}, but an ordinal this reader does not know reads as {@code unknown}: for a value that only informs
   * (the sender says the same in words beside it), so that a later release may add values without a new protocol version.
   */
  <E extends Enum<E>> E enumValueOr(Class<E> type, String what, E unknown) {
    int ordinal = u8(what);
    E[] values = type.getEnumConstants();
    return ordinal < values.length ? values[ordinal] : unknown;
  }

  void expectEnd(String what) {
    if (in.hasRemaining()) {
      throw new MalformedMessageException(what + " has " + in.remaining() + " unexpected trailing bytes");
    }
  }
}
