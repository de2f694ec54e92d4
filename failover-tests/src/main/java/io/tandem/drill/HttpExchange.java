package io.tandem.drill;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Collectors;

/** One HTTP request to one address, its failures sorted into "not sent" and "unknown". Thread-safe. */
final class HttpExchange {
  private final HttpClient http;
  private final Duration requestTimeout;

  HttpExchange(Duration connectTimeout, Duration requestTimeout) {
    this.http = HttpClient.newBuilder().connectTimeout(connectTimeout).followRedirects(HttpClient.Redirect.NEVER).build();
    this.requestTimeout = requestTimeout;
  }

  /**
   * Sends a GET, or a form POST when {@code form} is not null, with {@code sessionId} as the JSESSIONID cookie.
   */
  Answer send(String baseUrl, String pathAndQuery, Map<String, String> form, String sessionId) {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUrl + pathAndQuery)).timeout(requestTimeout);
    if (sessionId != null) {
      request.header("Cookie", "JSESSIONID=" + sessionId);
    }
    if (form != null) {
      String encoded = form.entrySet().stream()
          .map(e -> URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8) + "=" + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8))
          .collect(Collectors.joining("&"));
      request.header("Content-Type", "application/x-www-form-urlencoded").POST(HttpRequest.BodyPublishers.ofString(encoded));
    }
    try {
      HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
      String newSession = response.headers().allValues("Set-Cookie").stream()
          .filter(c -> c.startsWith("JSESSIONID="))
          .map(c -> c.substring("JSESSIONID=".length(), c.indexOf(';') < 0 ? c.length() : c.indexOf(';')))
          .findFirst().orElse(null);
      return new Answer(Answer.Delivery.ANSWERED, response.statusCode(), response.body().trim(), newSession,
          response.headers().firstValue("Location").orElse(null));
    } catch (HttpConnectTimeoutException e) {
      return Answer.notSent("not sent: connect timed out");
    } catch (ConnectException e) {
      return Answer.notSent(Answer.CONNECTION_REFUSED);
    } catch (HttpTimeoutException e) {
      return Answer.unknown("no answer: timed out");
    } catch (IOException e) {
      return Answer.unknown("no answer: connection broke"); // sent, then the connection broke
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Answer.unknown("no answer: interrupted");
    }
  }
}
