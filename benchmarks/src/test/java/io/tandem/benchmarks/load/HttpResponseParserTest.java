package io.tandem.benchmarks.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class HttpResponseParserTest {

  private static final String FIXED = "HTTP/1.1 200 OK\r\n"
      + "Set-Cookie: theme=dark; Path=/\r\n"
      + "Set-Cookie: JSESSIONID=ABC123.n1; Path=/app; HttpOnly\r\n"
      + "Content-Length: 11\r\n\r\n"
      + "hello world";

  private static final String CHUNKED = "HTTP/1.1 200 OK\r\n"
      + "Transfer-Encoding: chunked\r\n\r\n"
      + "5;ext=1\r\nhello\r\n"
      + "6\r\n world\r\n"
      + "0\r\n"
      + "X-Trailer: yes\r\n\r\n";

  private final HttpResponseParser parser = new HttpResponseParser("JSESSIONID");

  @Test
  void feed_fixedLength_splitAtEveryByte_givesTheSameResponse() throws Exception {
    for (int split = 0; split <= FIXED.length(); split++) {
      parser.reset();
      ByteBuffer first = bytes(FIXED.substring(0, split));
      ByteBuffer second = bytes(FIXED.substring(split));

      boolean doneEarly = parser.feed(first);
      assertThat(doneEarly).as("split at %d", split).isEqualTo(split == FIXED.length());
      assertThat(parser.feed(second)).isTrue();
      assertThat(parser.status()).isEqualTo(200);
      assertThat(parser.sessionCookie()).isEqualTo("ABC123.n1");
      assertThat(parser.bodyBytes()).isEqualTo(11);
      assertThat(parser.closeAfter()).isFalse();
    }
  }

  @Test
  void feed_chunkedWithExtensionAndTrailer_oneByteAtATime() throws Exception {
    boolean done = false;
    for (int i = 0; i < CHUNKED.length(); i++) {
      assertThat(done).as("complete before byte %d", i).isFalse();
      done = parser.feed(bytes(CHUNKED.substring(i, i + 1)));
    }

    assertThat(done).isTrue();
    assertThat(parser.bodyBytes()).isEqualTo(11);
    assertThat(parser.sessionCookie()).isNull();
  }

  @Test
  void feed_stopsAtTheEndOfTheResponse_leavingExtraBytesForTheCaller() throws Exception {
    ByteBuffer in = bytes(FIXED + "HTTP/1.1 200 OK\r\n");

    assertThat(parser.feed(in)).isTrue();
    assertThat(in.remaining()).isEqualTo("HTTP/1.1 200 OK\r\n".length());
  }

  @Test
  void feed_nextResponseAfterReset_parsesCleanly() throws Exception {
    parser.feed(bytes(FIXED));
    parser.reset();

    assertThat(parser.feed(bytes("HTTP/1.1 500 Oops\r\nContent-Length: 0\r\n\r\n"))).isTrue();
    assertThat(parser.status()).isEqualTo(500);
    assertThat(parser.sessionCookie()).isNull();
  }

  @Test
  void feed_interim100_isSkipped() throws Exception {
    assertThat(parser.feed(bytes("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n")))
        .isTrue();
    assertThat(parser.status()).isEqualTo(201);
  }

  @Test
  void feed_connectionClose_andHttp10_closeAfterTheResponse() throws Exception {
    parser.feed(bytes("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"));
    assertThat(parser.closeAfter()).isTrue();

    parser.reset();
    parser.feed(bytes("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n"));
    assertThat(parser.closeAfter()).isTrue();

    parser.reset();
    parser.feed(bytes("HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 0\r\n\r\n"));
    assertThat(parser.closeAfter()).isFalse();
  }

  @Test
  void feed_noLength_bodyRunsUntilClose() throws Exception {
    assertThat(parser.feed(bytes("HTTP/1.1 200 OK\r\n\r\nsome body"))).isFalse();
    assertThat(parser.endOfInput()).isTrue();
    assertThat(parser.bodyBytes()).isEqualTo(9);
    assertThat(parser.closeAfter()).isTrue();
  }

  @Test
  void feed_204_hasNoBody_andBareLineFeedsAreAccepted() throws Exception {
    assertThat(parser.feed(bytes("HTTP/1.1 204 No Content\nContent-Length: 5\n\n"))).isTrue();
  }

  @Test
  void endOfInput_midBody_isIncomplete() throws Exception {
    parser.feed(bytes("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"));

    assertThat(parser.started()).isTrue();
    assertThat(parser.endOfInput()).isFalse();
  }

  @Test
  void setCookie_withInjectionCharacters_isNotKept() throws Exception {
    parser.feed(bytes("HTTP/1.1 200 OK\r\nSet-Cookie: JSESSIONID=a b\r\nContent-Length: 0\r\n\r\n"));

    assertThat(parser.sessionCookie()).isNull();
  }

  @Test
  void feed_garbage_isMalformedInTheStatusLine() {
    MalformedResponseException e = catchThrowableOfType(MalformedResponseException.class,
        () -> parser.feed(bytes("SSH-2.0-OpenSSH_9.2\r\n")));

    assertThat(e.part()).isEqualTo("status line");
    assertThat(e).hasMessageContaining("'SSH-2.0-OpenSSH_9.2' is not an HTTP/1.x status line");
  }

  @Test
  void feed_badFraming_isMalformed_whereverItIs() {
    assertThat(malformed("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n").part())
        .isEqualTo("headers");
    assertThat(malformed("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n").part()).isEqualTo("headers");
    assertThat(malformed("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n").part())
        .isEqualTo("chunk size");
    assertThat(malformed("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n").part())
        .isEqualTo("end of chunk");
    assertThat(malformed("HTTP/1.1 200 OK\r\n folded\r\n\r\n")).hasMessageContaining("folding");
    assertThat(malformed("HTTP/2 200\r\n\r\n").part()).isEqualTo("status line");
    assertThat(malformed("HTTP/1.1 999 Odd\r\n\r\n").part()).isEqualTo("status line");
  }

  @Test
  void feed_endlessHeaderLine_isRefusedAtTheLimit_notBuffered() {
    String longLine = "HTTP/1.1 200 OK\r\nX: " + "x".repeat(HttpResponseParser.MAX_LINE_BYTES);

    assertThat(malformed(longLine)).hasMessageContaining("line is longer than 8192 bytes");
  }

  @Test
  void feed_endlessHead_isRefusedAtTheLimit() {
    String manyHeaders = "HTTP/1.1 200 OK\r\n" + "X-Filler: 0123456789\r\n".repeat(4000);

    assertThat(malformed(manyHeaders)).hasMessageContaining("head is longer than 65536 bytes");
  }

  private MalformedResponseException malformed(String response) {
    parser.reset();
    return catchThrowableOfType(MalformedResponseException.class, () -> parser.feed(bytes(response)));
  }

  private static ByteBuffer bytes(String text) {
    return ByteBuffer.wrap(text.getBytes(StandardCharsets.ISO_8859_1));
  }
}
