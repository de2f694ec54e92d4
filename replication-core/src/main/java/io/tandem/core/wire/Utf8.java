package io.tandem.core.wire;

import java.nio.charset.StandardCharsets;

/**
 * UTF-8 for the wire's strings without a {@code CharsetEncoder}/{@code CharsetDecoder} or an intermediate array
 * per string. Encoding gives exactly the bytes of {@code String.getBytes(UTF_8)}, a lone surrogate included (it
 * becomes {@code '?'}), so frames are byte for byte what they were. Decoding is strict: it accepts exactly the
 * well-formed sequences of the Unicode standard (table 3-7), which is what a UTF-8 {@code CharsetDecoder} with
 * {@code REPORT} accepts: no overlong forms, no encoded surrogates, nothing above U+10FFFF, no truncated sequence.
 */
final class Utf8 {
  private Utf8() {}

  /** The length of {@code s} in UTF-8, without encoding it. */
  static int encodedLength(String s) {
    int n = s.length();
    long bytes = n;
    for (int i = 0; i < n; i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        continue;
      }
      if (c < 0x800) {
        bytes += 1;
      } else if (!Character.isSurrogate(c)) {
        bytes += 2;
      } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
        bytes += 2; // two chars, four bytes
        i++;
      } // a lone surrogate is one '?'
    }
    if (bytes > WireWriter.MAX_SIZE) {
      throw new IllegalArgumentException("string longer than 2GiB in UTF-8 cannot be encoded");
    }
    return (int) bytes;
  }

  /** Writes {@code s} at {@code at}; {@code into} has room for {@link #encodedLength} bytes there. */
  static void encode(String s, byte[] into, int at) {
    int n = s.length();
    int p = at;
    for (int i = 0; i < n; i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        into[p++] = (byte) c;
      } else if (c < 0x800) {
        into[p++] = (byte) (0xc0 | (c >> 6));
        into[p++] = (byte) (0x80 | (c & 0x3f));
      } else if (!Character.isSurrogate(c)) {
        into[p++] = (byte) (0xe0 | (c >> 12));
        into[p++] = (byte) (0x80 | ((c >> 6) & 0x3f));
        into[p++] = (byte) (0x80 | (c & 0x3f));
      } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
        int cp = Character.toCodePoint(c, s.charAt(++i));
        into[p++] = (byte) (0xf0 | (cp >> 18));
        into[p++] = (byte) (0x80 | ((cp >> 12) & 0x3f));
        into[p++] = (byte) (0x80 | ((cp >> 6) & 0x3f));
        into[p++] = (byte) (0x80 | (cp & 0x3f));
      } else {
        into[p++] = '?';
      }
    }
  }

  /** The string {@code length} bytes from {@code offset} encode, or null when they are not well-formed UTF-8. */
  static String decode(byte[] bytes, int offset, int length) {
    return isWellFormed(bytes, offset, length) ? new String(bytes, offset, length, StandardCharsets.UTF_8) : null;
  }

  static boolean isWellFormed(byte[] b, int offset, int length) {
    int i = offset;
    int end = offset + length;
    while (i < end) {
      int lead = b[i] & 0xff;
      if (lead < 0x80) {
        i++;
        continue;
      }
      int need;
      int min = 0x80; // bounds of the second byte (table 3-7); later bytes are always 80..BF
      int max = 0xbf;
      if (lead >= 0xc2 && lead <= 0xdf) {
        need = 1;
      } else if (lead >= 0xe0 && lead <= 0xef) {
        need = 2;
        if (lead == 0xe0) {
          min = 0xa0; // overlong below U+0800
        } else if (lead == 0xed) {
          max = 0x9f; // U+D800..U+DFFF are surrogates
        }
      } else if (lead >= 0xf0 && lead <= 0xf4) {
        need = 3;
        if (lead == 0xf0) {
          min = 0x90; // overlong below U+10000
        } else if (lead == 0xf4) {
          max = 0x8f; // above U+10FFFF
        }
      } else {
        return false; // a continuation byte, C0/C1 (overlong) or F5..FF
      }
      if (end - i <= need) {
        return false; // truncated
      }
      int second = b[i + 1] & 0xff;
      if (second < min || second > max) {
        return false;
      }
      for (int k = 2; k <= need; k++) {
        if ((b[i + k] & 0xc0) != 0x80) {
          return false;
        }
      }
      i += need + 1;
    }
    return true;
  }
}
