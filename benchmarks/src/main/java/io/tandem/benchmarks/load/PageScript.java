package io.tandem.benchmarks.load;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The session flow of one virtual user: which page comes next, which session cookie to send, and the request bytes.
 *
 * <p>Page {@code i} of a session asks the server to add attribute {@code a<i>} of S bytes and list them all:
 * {@code GET <path>?user=<u>&page=<i>&name=a<i>&size=<S>}. After page K the user forgets its cookie, so its next request
 * carries none and the server starts a new session. A failed page still moves the user on, as a person would click on:
 * the session keeps the pages that reached it.
 *
 * <p>Implementation notes: owned by the event loop thread of its user; not thread-safe.
 */
final class PageScript {

  static final String SESSION_COOKIE = "JSESSIONID";

  private final int user;
  private final Target target;
  private final int pagesPerSession;
  private final int attributeBytes;
  private int page = 1;
  private String sessionCookie;

  PageScript(int user, Target target, int pagesPerSession, int attributeBytes) {
    this.user = user;
    this.target = target;
    this.pagesPerSession = pagesPerSession;
    this.attributeBytes = attributeBytes;
  }

  /** The page the next request asks for, 1 to K. */
  int page() {
    return page;
  }

  /** The session cookie the next request sends, or null for a new session. */
  String sessionCookie() {
    return sessionCookie;
  }

  /** The next request, ready to write. */
  ByteBuffer request() {
    StringBuilder b = new StringBuilder(160 + (sessionCookie == null ? 0 : sessionCookie.length()));
    b.append("GET ").append(target.path())
        .append("?user=").append(user)
        .append("&page=").append(page)
        .append("&name=a").append(page)
        .append("&size=").append(attributeBytes)
        .append(" HTTP/1.1\r\nHost: ").append(target.authority()).append("\r\n");
    if (sessionCookie != null) {
      b.append("Cookie: ").append(SESSION_COOKIE).append('=').append(sessionCookie).append("\r\n");
    }
    b.append("Connection: keep-alive\r\nUser-Agent: tandem-load\r\n\r\n");
    return ByteBuffer.wrap(b.toString().getBytes(StandardCharsets.ISO_8859_1));
  }

  /**
   * The page got a response (any status).
   *
   * @param setCookie the session cookie the response set, or null
   * @return true when the response gave the user a session cookie it did not hold
   */
  boolean responded(String setCookie) {
    boolean newSession = setCookie != null && !setCookie.equals(sessionCookie);
    if (setCookie != null) {
      sessionCookie = setCookie;
    }
    advance();
    return newSession;
  }

  /** The page failed without a response; the user moves on. */
  void failed() {
    advance();
  }

  private void advance() {
    if (page == pagesPerSession) {
      page = 1;
      sessionCookie = null;
    } else {
      page++;
    }
  }
}
