package io.tandem.benchmarks.capacity;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Checks that a session written on one node can be read on the other: the proof that a pair replicates. */
final class SessionProbe {

  private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private SessionProbe() {}

  /** Writes a new session on {@code writer}, then asks {@code reader} for it; true when it continued the count. */
  static boolean replicates(BenchNode writer, BenchNode reader) throws IOException, InterruptedException {
    HttpResponse<String> first = touch(writer, null);
    String cookie = first.headers().firstValue("Set-Cookie").orElse("");
    if (first.statusCode() != 200 || !cookie.startsWith("JSESSIONID=")) {
      return false;
    }
    String session = cookie.substring(0, cookie.indexOf(';') < 0 ? cookie.length() : cookie.indexOf(';'));
    HttpResponse<String> second = touch(reader, session);
    return second.statusCode() == 200 && second.body().contains("hits=2");
  }

  private static HttpResponse<String> touch(BenchNode node, String cookie) throws IOException, InterruptedException {
    HttpRequest.Builder request = HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + node.httpPort + BenchNode.CONTEXT + "/touch.jsp")).timeout(Duration.ofSeconds(10));
    if (cookie != null) {
      request.header("Cookie", cookie);
    }
    return CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
