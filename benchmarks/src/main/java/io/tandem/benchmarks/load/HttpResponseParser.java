package io.tandem.benchmarks.load;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;

/**
 * Frames HTTP/1.x responses on one connection from bytes that arrive in any split, and keeps only what the driver
 * needs: the status, the session cookie, whether the server will close the connection, and the body length. The body
 * itself is skipped, never copied, so one shared read buffer serves every connection of an event loop.
 *
 * <p>Implementation notes: one instance per connection, used only by that connection's event loop thread; no locks.
 * {@link #feed} consumes bytes up to the end of one response and stops there, so bytes after it stay in the buffer
 * for the caller to judge (the driver never pipelines, so any are a protocol error). Interim 1xx responses are
 * skipped. Body framing follows RFC 9112 §6.3: Transfer-Encoding chunked, else Content-Length, else until the server
 * closes. Lines may end in CRLF or a bare LF; obsolete header folding is refused.
 */
final class HttpResponseParser {

  static final int MAX_LINE_BYTES = 8 * 1024;
  static final int MAX_HEADER_BYTES = 64 * 1024;

  private enum State {
    STATUS_LINE("status line"),
    HEADERS("headers"),
    FIXED_BODY("body"),
    CHUNK_SIZE("chunk size"),
    CHUNK_DATA("chunk data"),
    CHUNK_DATA_END("end of chunk"),
    TRAILERS("trailers"),
    UNTIL_CLOSE("body"),
    DONE("end");

    final String part;

    State(String part) {
      this.part = part;
    }
  }

  private final String cookieName;
  // Grows on demand up to MAX_LINE_BYTES: thousands of connections each holding 8 KiB would waste memory for nothing.
  private byte[] line = new byte[128];
  private int lineLength;

  private State state;
  private long consumed;
  private int headerBytes;
  private int status;
  private boolean closeAfter;
  private boolean keepAliveAsked;
  private int httpMinor;
  private long contentLength;
  private boolean chunked;
  private boolean otherTransferCoding;
  private String sessionCookie;
  private long remaining;
  private long bodyBytes;

  HttpResponseParser(String cookieName) {
    this.cookieName = cookieName;
    reset();
  }

  /** Forgets the last response, ready for the next one on the same connection. */
  void reset() {
    lineLength = 0;
    state = State.STATUS_LINE;
    consumed = 0;
    resetHead();
  }

  private void resetHead() {
    headerBytes = 0;
    status = 0;
    closeAfter = false;
    keepAliveAsked = false;
    httpMinor = 1;
    contentLength = -1;
    chunked = false;
    otherTransferCoding = false;
    sessionCookie = null;
    remaining = 0;
    bodyBytes = 0;
  }

  /**
   * Consumes bytes from {@code in} up to the end of the current response.
   *
   * @return true when the response is complete; bytes after it are left in {@code in}
   */
  boolean feed(ByteBuffer in) throws MalformedResponseException {
    while (state != State.DONE && in.hasRemaining()) {
      switch (state) {
        case FIXED_BODY, CHUNK_DATA -> skipBody(in);
        case UNTIL_CLOSE -> {
          int n = in.remaining();
          in.position(in.limit());
          consumed += n;
          bodyBytes += n;
        }
        default -> {
          if (readLine(in)) {
            onLine();
          }
        }
      }
    }
    return state == State.DONE;
  }

  /**
   * The server closed the connection. Completes a response whose body runs until close.
   *
   * @return true when that completed the response; false when the response is cut short
   */
  boolean endOfInput() {
    if (state == State.UNTIL_CLOSE) {
      state = State.DONE;
    }
    return state == State.DONE;
  }

  /** True once any byte of the current response has arrived. */
  boolean started() {
    return consumed > 0;
  }

  int status() {
    return status;
  }

  /** The value of the session cookie this response set, or null when it set none. */
  String sessionCookie() {
    return sessionCookie;
  }

  /** True when the server will close the connection after this response, or its body ran until close. */
  boolean closeAfter() {
    return closeAfter;
  }

  long bodyBytes() {
    return bodyBytes;
  }

  private void skipBody(ByteBuffer in) {
    int n = (int) Math.min(remaining, in.remaining());
    in.position(in.position() + n);
    consumed += n;
    bodyBytes += n;
    remaining -= n;
    if (remaining == 0) {
      state = state == State.FIXED_BODY ? State.DONE : State.CHUNK_DATA_END;
    }
  }

  /** Appends bytes to the current line; true when its line feed arrived (the line excludes CR LF). */
  private boolean readLine(ByteBuffer in) throws MalformedResponseException {
    boolean head = state == State.STATUS_LINE || state == State.HEADERS || state == State.TRAILERS;
    while (in.hasRemaining()) {
      byte b = in.get();
      consumed++;
      if (head && ++headerBytes > MAX_HEADER_BYTES) {
        throw malformed("the head is longer than " + MAX_HEADER_BYTES + " bytes");
      }
      if (b == '\n') {
        if (lineLength > 0 && line[lineLength - 1] == '\r') {
          lineLength--;
        }
        return true;
      }
      if (lineLength == line.length) {
        if (lineLength == MAX_LINE_BYTES) {
          throw malformed("a line is longer than " + MAX_LINE_BYTES + " bytes");
        }
        line = Arrays.copyOf(line, Math.min(MAX_LINE_BYTES, line.length * 2));
      }
      line[lineLength++] = b;
    }
    return false;
  }

  private void onLine() throws MalformedResponseException {
    String text = new String(line, 0, lineLength, StandardCharsets.ISO_8859_1);
    lineLength = 0;
    switch (state) {
      case STATUS_LINE -> statusLine(text);
      case HEADERS -> {
        if (text.isEmpty()) {
          endOfHead();
        } else {
          header(text);
        }
      }
      case CHUNK_SIZE -> chunkSize(text);
      case CHUNK_DATA_END -> {
        if (!text.isEmpty()) {
          throw malformed("chunk data runs past its declared size");
        }
        state = State.CHUNK_SIZE;
      }
      case TRAILERS -> {
        if (text.isEmpty()) {
          state = State.DONE;
        }
      }
      default -> throw new IllegalStateException("no line expected in state " + state);
    }
  }

  private void statusLine(String text) throws MalformedResponseException {
    // HTTP/1.1 200 OK — the reason phrase may be empty or absent.
    if (text.length() < 12 || !text.startsWith("HTTP/1.") || text.charAt(8) != ' '
        || (text.length() > 12 && text.charAt(12) != ' ')) {
      throw malformed("'" + abbreviate(text) + "' is not an HTTP/1.x status line");
    }
    char minor = text.charAt(7);
    int code = (int) digits(text, 9, 12);
    if ((minor != '0' && minor != '1') || code < 100 || code > 599) {
      throw malformed("'" + abbreviate(text) + "' is not an HTTP/1.0 or 1.1 status line with a status 100-599");
    }
    httpMinor = minor - '0';
    status = code;
    state = State.HEADERS;
  }

  private void header(String text) throws MalformedResponseException {
    char first = text.charAt(0);
    if (first == ' ' || first == '\t') {
      throw malformed("obsolete header line folding");
    }
    int colon = text.indexOf(':');
    if (colon <= 0 || text.charAt(colon - 1) == ' ' || text.charAt(colon - 1) == '\t') {
      throw malformed("'" + abbreviate(text) + "' is not a header field");
    }
    String name = text.substring(0, colon);
    String value = text.substring(colon + 1).strip();
    if (name.equalsIgnoreCase("Content-Length")) {
      long length = value.isEmpty() || value.length() > 18 ? -1 : digits(value, 0, value.length());
      if (length < 0 || (contentLength >= 0 && contentLength != length)) {
        throw malformed("Content-Length '" + abbreviate(value) + "' is not one non-negative number");
      }
      contentLength = length;
    } else if (name.equalsIgnoreCase("Transfer-Encoding")) {
      // Only a final "chunked" frames the body; any other last coding means the body runs until close.
      String[] codings = value.toLowerCase(Locale.ROOT).split(",");
      boolean lastIsChunked = codings[codings.length - 1].strip().equals("chunked");
      chunked = lastIsChunked;
      otherTransferCoding = !lastIsChunked;
    } else if (name.equalsIgnoreCase("Connection")) {
      for (String token : value.toLowerCase(Locale.ROOT).split(",")) {
        String t = token.strip();
        if (t.equals("close")) {
          closeAfter = true;
        } else if (t.equals("keep-alive")) {
          keepAliveAsked = true;
        }
      }
    } else if (name.equalsIgnoreCase("Set-Cookie")) {
      setCookie(value);
    }
  }

  private void setCookie(String value) {
    int equals = value.indexOf('=');
    if (equals <= 0 || !value.substring(0, equals).strip().equals(cookieName)) {
      return;
    }
    int semicolon = value.indexOf(';', equals);
    String cookie = value.substring(equals + 1, semicolon < 0 ? value.length() : semicolon).strip();
    // Sent back verbatim in a request header: refuse anything that could break out of it.
    if (!cookie.isEmpty() && cookie.chars().allMatch(c -> c > 0x20 && c < 0x7f && c != ';' && c != ',' && c != '\\')) {
      sessionCookie = cookie;
    }
  }

  private void endOfHead() throws MalformedResponseException {
    if (httpMinor == 0 && !keepAliveAsked) {
      closeAfter = true;
    }
    if (status == 101) {
      throw malformed("101 Switching Protocols, but the driver never asks to upgrade");
    }
    if (status < 200) {
      // An interim response (100 Continue, 103 Early Hints): the real one follows on the same connection.
      resetHead();
      state = State.STATUS_LINE;
      return;
    }
    if (status == 204 || status == 304) {
      state = State.DONE;
    } else if (chunked) {
      state = State.CHUNK_SIZE;
    } else if (otherTransferCoding || contentLength < 0) {
      closeAfter = true;
      state = State.UNTIL_CLOSE;
    } else if (contentLength == 0) {
      state = State.DONE;
    } else {
      remaining = contentLength;
      state = State.FIXED_BODY;
    }
  }

  private void chunkSize(String text) throws MalformedResponseException {
    int semicolon = text.indexOf(';');
    String hex = (semicolon < 0 ? text : text.substring(0, semicolon)).strip();
    long size = -1;
    if (!hex.isEmpty() && hex.length() <= 15) {
      try {
        size = Long.parseLong(hex, 16);
      } catch (NumberFormatException e) {
        size = -1;
      }
    }
    if (size < 0 || hex.charAt(0) == '+') {
      throw malformed("chunk size '" + abbreviate(text) + "' is not a hexadecimal number");
    }
    if (size == 0) {
      state = State.TRAILERS;
    } else {
      remaining = size;
      state = State.CHUNK_DATA;
    }
  }

  /** The decimal number in {@code text[from, to)}, or -1 when it holds anything but digits. */
  private static long digits(String text, int from, int to) {
    long value = 0;
    for (int i = from; i < to; i++) {
      char c = text.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      value = value * 10 + (c - '0');
    }
    return value;
  }

  private MalformedResponseException malformed(String problem) {
    return new MalformedResponseException(state.part, consumed, problem);
  }

  private static String abbreviate(String text) {
    String shown = text.length() > 60 ? text.substring(0, 60) + "..." : text;
    StringBuilder b = new StringBuilder(shown.length());
    for (char c : shown.toCharArray()) {
      b.append(c < 0x20 || c > 0x7e ? '?' : c);
    }
    return b.toString();
  }
}
