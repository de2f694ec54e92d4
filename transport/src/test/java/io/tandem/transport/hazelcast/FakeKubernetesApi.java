package io.tandem.transport.hazelcast;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * Just enough of the Kubernetes API, over HTTPS on loopback, for Hazelcast's discovery in API mode: the
 * EndpointSlices of one Service, whose endpoints are the given addresses; everything else is {@code 404 NotFound}
 * (which Hazelcast's client treats as final, not as a reason to retry). Records every request it answers.
 */
final class FakeKubernetesApi implements AutoCloseable {
  static final String TOKEN = "fake-service-account-token";

  private final HttpsServer server;
  private final String certificatePem;
  final List<String> requests = new CopyOnWriteArrayList<>();

  FakeKubernetesApi(Path work, String namespace, String service, List<String> addresses, int port) throws Exception {
    Path keystore = work.resolve("api.p12");
    Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
        "-genkeypair", "-alias", "api", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=127.0.0.1",
        "-ext", "SAN=ip:127.0.0.1", "-validity", "2", "-storetype", "PKCS12", "-keystore", keystore.toString(),
        "-storepass", "changeit", "-keypass", "changeit").redirectErrorStream(true).start();
    String output = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!keytool.waitFor(60, TimeUnit.SECONDS) || keytool.exitValue() != 0) {
      throw new IllegalStateException("keytool failed: " + output);
    }
    KeyStore keys = KeyStore.getInstance("PKCS12");
    try (InputStream in = java.nio.file.Files.newInputStream(keystore)) {
      keys.load(in, "changeit".toCharArray());
    }
    Certificate certificate = keys.getCertificate("api");
    certificatePem = "-----BEGIN CERTIFICATE-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(certificate.getEncoded())
        + "\n-----END CERTIFICATE-----\n";
    KeyManagerFactory keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    keyManagers.init(keys, "changeit".toCharArray());
    SSLContext tls = SSLContext.getInstance("TLS");
    tls.init(keyManagers.getKeyManagers(), null, null);

    String slices = "/apis/discovery.k8s.io/v1/namespaces/" + namespace + "/endpointslices";
    String endpoints = addresses.stream()
        .map(a -> "{\"addresses\":[\"" + a + "\"],\"conditions\":{\"ready\":true},\"targetRef\":{\"kind\":\"Pod\","
            + "\"name\":\"pod-" + a + "\"}}")
        .collect(Collectors.joining(","));
    String serviceSlices = "{\"kind\":\"EndpointSliceList\",\"items\":[{\"metadata\":{\"name\":\"" + service + "-abc\","
        + "\"labels\":{\"kubernetes.io/service-name\":\"" + service + "\"}},\"addressType\":\"IPv4\",\"endpoints\":["
        + endpoints + "],\"ports\":[{\"name\":\"membership\",\"port\":" + port + ",\"protocol\":\"TCP\"}]}]}";

    server = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setHttpsConfigurator(new HttpsConfigurator(tls));
    server.createContext("/", exchange -> {
      String target = exchange.getRequestURI().toString();
      requests.add(exchange.getRequestHeaders().getFirst("Authorization") + " " + target);
      if (exchange.getRequestURI().getPath().equals(slices)) {
        String query = exchange.getRequestURI().getQuery();
        boolean ofService = query != null && query.equals("labelSelector=kubernetes.io/service-name=" + service);
        answer(exchange, 200, ofService ? serviceSlices : "{\"kind\":\"EndpointSliceList\",\"items\":[]}");
      } else {
        answer(exchange, 404, "{\"kind\":\"Status\",\"status\":\"Failure\",\"reason\":\"NotFound\",\"code\":404}");
      }
    });
    server.start();
  }

  /** What Hazelcast reads as {@code hazelcast.kubernetes.kubernetes-master}. */
  String url() {
    return "https://127.0.0.1:" + server.getAddress().getPort();
  }

  /** The server's certificate, as Hazelcast reads {@code hazelcast.kubernetes.ca-certificate}. */
  String certificatePem() {
    return certificatePem;
  }

  private static void answer(HttpExchange exchange, int status, String json) throws IOException {
    byte[] body = json.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
