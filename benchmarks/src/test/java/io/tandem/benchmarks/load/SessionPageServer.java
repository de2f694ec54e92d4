package io.tandem.benchmarks.load;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The benchmark page, served by the JDK's HTTP server on 127.0.0.1 (keep-alive, fixed thread pool): a session per
 * JSESSIONID cookie, Set-Cookie on a new one, each request adds attribute {@code name} of {@code size} bytes and lists
 * every attribute with its value, so the response grows with the session as on the real page. Every request is
 * recorded as a {@link Hit} for the test to check.
 */
final class SessionPageServer implements AutoCloseable {

  static final String PATH = "/app/page";

  static {
    // The JDK server writes headers and body separately; with Nagle on, the body waits for the client's delayed ACK
    // (~40 ms on Linux). Tomcat sets TCP_NODELAY, and so must this stand-in. Read once, when the server classes load.
    System.setProperty("sun.net.httpserver.nodelay", "true");
  }

  /** One request as the server saw it. */
  record Hit(int user, int page, String cookieSent, String session, boolean newSession, int attributes,
      int remotePort) { }

  private final String route;
  private final HttpServer server;
  private final ExecutorService pool;
  private final Map<String, Map<String, String>> sessions = new ConcurrentHashMap<>();
  private final Queue<Hit> hits = new ConcurrentLinkedQueue<>();
  private final AtomicInteger requests = new AtomicInteger();
  private final AtomicInteger sessionIds = new AtomicInteger();
  private final AtomicLong stallUntil = new AtomicLong();
  private volatile int status = 200;
  private volatile boolean chunked;
  private volatile int stallAtRequest = -1;
  private volatile long stallNanos;

  SessionPageServer(String route) {
    this.route = route;
    try {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 200);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    AtomicInteger threads = new AtomicInteger();
    pool = Executors.newFixedThreadPool(4, r -> {
      Thread t = new Thread(r, "test-page-" + route + "-" + threads.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    server.setExecutor(pool);
    server.createContext(PATH, this::handle);
    server.start();
  }

  /** Every response gets this status (the page is still served). */
  SessionPageServer answering(int statusCode) {
    this.status = statusCode;
    return this;
  }

  /** Responses without Content-Length, in chunks. */
  SessionPageServer chunked() {
    this.chunked = true;
    return this;
  }

  /** Request number {@code n} freezes the server for {@code length}: it and every request arriving meanwhile wait. */
  SessionPageServer stallOnce(int n, Duration length) {
    this.stallNanos = length.toNanos();
    this.stallAtRequest = n;
    return this;
  }

  Target target() {
    return new Target("127.0.0.1", server.getAddress().getPort(), PATH);
  }

  List<Hit> hits() {
    return new ArrayList<>(hits);
  }

  int sessionsCreated() {
    return sessionIds.get();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      long now = System.nanoTime();
      if (requests.incrementAndGet() == stallAtRequest) {
        stallUntil.set(now + stallNanos);
      }
      long until = stallUntil.get();
      if (until != 0 && until - now > 0) {
        TimeUnit.NANOSECONDS.sleep(until - now);
      }
      Map<String, String> query = query(exchange.getRequestURI().getRawQuery());
      String cookie = sessionCookie(exchange.getRequestHeaders().getFirst("Cookie"));
      Map<String, String> attributes = cookie == null ? null : sessions.get(cookie);
      boolean created = attributes == null;
      String session = cookie;
      if (created) {
        session = "S" + sessionIds.incrementAndGet() + "." + route;
        attributes = new LinkedHashMap<>();
        sessions.put(session, attributes);
        exchange.getResponseHeaders().add("Set-Cookie", "JSESSIONID=" + session + "; Path=/app; HttpOnly");
      }
      StringBuilder body = new StringBuilder();
      int size;
      synchronized (attributes) {
        attributes.put(query.get("name"), randomText(Integer.parseInt(query.get("size"))));
        attributes.forEach((name, value) -> body.append(name).append('=').append(value).append('\n'));
        size = attributes.size();
      }
      hits.add(new Hit(Integer.parseInt(query.get("user")), Integer.parseInt(query.get("page")), cookie, session,
          created, size, exchange.getRemoteAddress().getPort()));
      byte[] bytes = body.toString().getBytes(StandardCharsets.ISO_8859_1);
      exchange.sendResponseHeaders(status, chunked ? 0 : bytes.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static Map<String, String> query(String raw) {
    Map<String, String> params = new LinkedHashMap<>();
    for (String pair : raw.split("&")) {
      int equals = pair.indexOf('=');
      params.put(pair.substring(0, equals), pair.substring(equals + 1));
    }
    return params;
  }

  private static String sessionCookie(String header) {
    if (header == null) {
      return null;
    }
    for (String cookie : header.split(";")) {
      String c = cookie.strip();
      if (c.startsWith("JSESSIONID=")) {
        return c.substring("JSESSIONID=".length());
      }
    }
    return null;
  }

  private static String randomText(int size) {
    char[] chars = new char[size];
    ThreadLocalRandom random = ThreadLocalRandom.current();
    for (int i = 0; i < size; i++) {
      chars[i] = (char) ('a' + random.nextInt(26));
    }
    return new String(chars);
  }

  @Override
  public void close() {
    server.stop(0);
    pool.shutdownNow();
  }
}
