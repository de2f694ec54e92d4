package io.tandem.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tandem.core.testing.FreePorts;
import io.tandem.tomcat.ReplicationMXBean;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.net.CookieManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Tandem's figures as Micrometer meters in real Spring Boot applications: two nodes in this JVM, each with its own
 * {@link SimpleMeterRegistry} bean and Actuator binding the {@code MeterBinder} beans, as in an application.
 */
class TandemMetricsTest {
  private static final String SECRET = "0123456789abcdef0123456789abcdef";

  private final List<ConfigurableApplicationContext> applications = new ArrayList<>();
  private final HttpClient client = HttpClient.newBuilder().cookieHandler(new CookieManager())
      .connectTimeout(Duration.ofSeconds(5)).build();

  @Configuration(proxyBeanMethods = false)
  static class Registry {
    @Bean
    SimpleMeterRegistry meterRegistry() {
      return new SimpleMeterRegistry();
    }
  }

  @AfterEach
  void stop() {
    applications.forEach(ConfigurableApplicationContext::close);
  }

  @Test
  void replicatedSession_movesTheCounters_ofMetersTaggedWithNodeAndContext_removedWhenTheContextStops()
      throws Exception {
    String cluster = "metrics-" + System.nanoTime();
    int[] membershipPorts = {FreePorts.loopback(), FreePorts.loopback()};
    String members = "127.0.0.1:" + membershipPorts[0] + ",127.0.0.1:" + membershipPorts[1];
    for (int i = 0; i < 2; i++) {
      applications.add(SpringApplication.run(new Class<?>[] {SessionApp.class, Registry.class}, new String[] {
          "--server.port=0", "--server.address=127.0.0.1", "--tandem.jvm-route=n" + (i + 1),
          "--tandem.cluster-name=" + cluster, "--tandem.shared-secret=" + SECRET,
          "--tandem.bind-address=127.0.0.1", "--tandem.transport-port=" + FreePorts.loopback(),
          "--tandem.membership-port=" + membershipPorts[i], "--tandem.members=" + members,
          "--tandem.scope=MODIFIED_ATTRIBUTE", "--tandem.mode=SYNC"}));
    }
    ConfigurableApplicationContext n1 = applications.get(0);
    MeterRegistry registry = n1.getBean(MeterRegistry.class);
    assertThat(n1.getBeansOfType(TandemMetrics.class)).hasSize(1);
    await().atMost(Duration.ofSeconds(30)).until(() -> "n2".equals(buddy("n1")) && "n1".equals(buddy("n2")));

    // Every figure, for this application's node and context (the ROOT context is "/").
    for (TandemMetrics.Figure figure : TandemMetrics.FIGURES) {
      Meter meter = registry.find(figure.meterName()).tag("node", "n1").tag("context", "/").meter();
      assertThat(meter).as(figure.meterName()).isInstanceOf(figure.counter() ? FunctionCounter.class : Gauge.class);
      assertThat(meter.getId().getDescription()).as(figure.meterName()).isNotBlank();
    }
    assertThat(registry.get("tandem.backup.bytes").tag("node", "n1").gauge().getId().getBaseUnit()).isEqualTo("bytes");
    assertThat(registry.get("tandem.full.sessions.sent").tag("node", "n1").functionCounter().count()).isZero();
    double requestsBefore = registry.get("tandem.requests.sent").tag("node", "n1").functionCounter().count();

    HttpResponse<String> written = client.send(HttpRequest.newBuilder(URI.create(
        "http://127.0.0.1:" + port(n1) + "/set?name=cart&value=book")).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(written.statusCode()).as(written.body()).isEqualTo(200);

    // Live: the same meters, read again, show the SYNC write (acknowledged before the response). Which message carried
    // the session is not this test's business: the request's own send (FullSessionsSent) or, when the ring changed
    // under it (a redial on a loaded machine), the re-protection's state transfer, which that figure does not count
    // (a CI run saw it 0 after a 200 whose session n2 held). Both are requests n1 sent.
    String figures = figures("n1") + "\n" + figures("n2");
    assertThat(registry.get("tandem.requests.sent").tag("node", "n1").functionCounter().count())
        .as(figures).isGreaterThan(requestsBefore);
    assertThat(registry.get("tandem.owned.sessions").tag("node", "n1").gauge().value()).as(figures).isEqualTo(1);
    assertThat(registry.get("tandem.sessions.without.backup").tag("node", "n1").gauge().value()).as(figures).isZero();
    assertThat(registry.get("tandem.full.sessions.sent").tag("node", "n1").functionCounter().count()
        + registry.get("tandem.deltas.sent").tag("node", "n1").functionCounter().count())
        .as(figures).isEqualTo(readFigure("n1", "FullSessionsSent") + readFigure("n1", "DeltasSent"));
    // The other manager in this JVM is bound too (one binder covers every Tandem MBean): n2 holds the backup.
    assertThat(registry.get("tandem.backup.sessions").tag("node", "n2").gauge().value()).isEqualTo(1);

    applications.remove(1).close();
    assertThat(registry.find("tandem.backup.sessions").tag("node", "n2").meters()).isEmpty();
    assertThat(registry.find("tandem.owned.sessions").tag("node", "n1").gauge()).isNotNull();
  }

  @Test
  void figures_coverEveryNumericAttributeOfTheMXBean_namedByTheRule() {
    List<String> numeric = Arrays.stream(ReplicationMXBean.class.getMethods())
        .filter(method -> method.getReturnType() == long.class || method.getReturnType() == int.class)
        .map(Method::getName).map(name -> name.substring(3)).toList();

    assertThat(TandemMetrics.FIGURES).extracting(TandemMetrics.Figure::attribute)
        .containsExactlyInAnyOrderElementsOf(numeric);
    assertThat(TandemMetrics.FIGURES).extracting(TandemMetrics.Figure::meterName).contains(
        "tandem.responses.aborted", "tandem.sessions.without.backup", "tandem.backup.bytes",
        "tandem.responses.503.not.admitted", "tandem.last.reprotection", "tandem.replication.latency.p99",
        "tandem.replication.latency.max").doesNotHaveDuplicates();
  }

  @Test
  void binder_isConditionalOnMicrometerAndARegistry() throws Exception {
    assertThat(TandemMetricsAutoConfiguration.class.getAnnotation(ConditionalOnClass.class).value())
        .contains(MeterRegistry.class);
    assertThat(TandemMetricsAutoConfiguration.class.getDeclaredMethod("tandemMetrics")
        .getAnnotation(ConditionalOnBean.class).value()).containsExactly(MeterRegistry.class);
  }

  private static int port(ConfigurableApplicationContext application) {
    return ((WebServerApplicationContext) application).getWebServer().getPort();
  }

  /** Every attribute of {@code node}'s MBean, for a failure's message. */
  private static String figures(String node) throws Exception {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    StringBuilder text = new StringBuilder(node).append(':');
    for (ObjectName name : server.queryNames(new ObjectName("io.tandem:type=Replication,*"), null)) {
      if (name.getKeyProperty("node").equals(ObjectName.quote(node))) {
        for (javax.management.MBeanAttributeInfo attribute : server.getMBeanInfo(name).getAttributes()) {
          text.append(' ').append(attribute.getName()).append('=').append(server.getAttribute(name, attribute.getName()));
        }
      }
    }
    return text.toString();
  }

  private static double readFigure(String node, String attribute) throws Exception {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    for (ObjectName name : server.queryNames(new ObjectName("io.tandem:type=Replication,*"), null)) {
      if (name.getKeyProperty("node").equals(ObjectName.quote(node))) {
        return ((Number) server.getAttribute(name, attribute)).doubleValue();
      }
    }
    return Double.NaN;
  }

  private static String buddy(String node) throws Exception {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    for (ObjectName name : server.queryNames(new ObjectName("io.tandem:type=Replication,*"), null)) {
      if (name.getKeyProperty("node").equals(ObjectName.quote(node))) {
        return String.valueOf(server.getAttribute(name, "Buddy"));
      }
    }
    return "";
  }
}
