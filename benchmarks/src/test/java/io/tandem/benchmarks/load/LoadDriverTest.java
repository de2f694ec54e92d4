package io.tandem.benchmarks.load;

import static java.util.stream.Collectors.groupingBy;
import static java.util.stream.Collectors.toSet;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.tandem.benchmarks.load.SessionPageServer.Hit;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The driver against loopback servers: session flow, stickiness, connections, and ending on time. */
class LoadDriverTest {

  private static final int PAGES = 3;

  private static LoadProfile quick(int users) {
    return LoadProfile.of(users)
        .withPagesPerSession(PAGES)
        .withAttributeBytes(100)
        .withThinkTime(Duration.ofMillis(20), 0.10)
        .withTiming(Duration.ZERO, Duration.ofSeconds(1), Duration.ofSeconds(2));
  }

  @Test
  void run_cookiesKeepEachUserInOneSessionForKPages_thenANewSessionStarts() throws Exception {
    try (SessionPageServer server = new SessionPageServer("n1").chunked()) {
      StepResult result = new LoadDriver().run(quick(10), List.of(server.target()));

      assertThat(result.errorCount()).as(result.toString()).isZero();
      List<Hit> hits = server.hits();
      // Nothing was warm-up, so every request the server saw is one the driver counted, and the reverse.
      assertThat(result.successes()).isEqualTo(hits.size());
      Map<Integer, List<Hit>> byUser = hits.stream().collect(groupingBy(Hit::user));
      assertThat(byUser).hasSize(10);
      long expectedSessions = 0;
      for (List<Hit> pages : byUser.values()) {
        assertThat(pages).as("pages of one user").hasSizeGreaterThan(2 * PAGES);
        String session = null;
        for (int i = 0; i < pages.size(); i++) {
          Hit hit = pages.get(i);
          int page = i % PAGES + 1;
          assertThat(hit.page()).isEqualTo(page);
          assertThat(hit.attributes()).as("attributes listed on page %d", page).isEqualTo(page);
          if (page == 1) {
            assertThat(hit.cookieSent()).as("a new session sends no cookie").isNull();
            assertThat(hit.newSession()).isTrue();
            session = hit.session();
          } else {
            assertThat(hit.cookieSent()).as("page %d stays in the session of page 1", page).isEqualTo(session);
            assertThat(hit.newSession()).isFalse();
          }
        }
        expectedSessions += (pages.size() + PAGES - 1) / PAGES;
      }
      assertThat(server.sessionsCreated()).isEqualTo(expectedSessions);
      assertThat(result.sessionsStarted()).isEqualTo(expectedSessions);
    }
  }

  @Test
  void run_twoTargets_dealsUsersRoundRobinAndKeepsEachOnItsOwn() throws Exception {
    try (SessionPageServer first = new SessionPageServer("n1"); SessionPageServer second = new SessionPageServer("n2")) {
      StepResult result = new LoadDriver().run(quick(6), List.of(first.target(), second.target()));

      assertThat(result.errorCount()).as(result.toString()).isZero();
      assertThat(usersOf(first)).containsExactlyInAnyOrder(0, 2, 4);
      assertThat(usersOf(second)).containsExactlyInAnyOrder(1, 3, 5);
      assertThat(first.hits().size() + second.hits().size()).isEqualTo(result.successes());
      assertThat(first.hits()).allSatisfy(hit -> assertThat(hit.session()).endsWith(".n1"));
      assertThat(second.hits()).allSatisfy(hit -> assertThat(hit.session()).endsWith(".n2"));
    }
  }

  @Test
  void run_keepAlive_opensOneConnectionPerUser_andClosesThemAllBeforeReturning() throws Exception {
    try (ScriptedServer server = new ScriptedServer(n -> ScriptedServer.Reply.of(ScriptedServer.OK))) {
      StepResult result = new LoadDriver().run(quick(25), List.of(server.target()));

      assertThat(result.errorCount()).as(result.toString()).isZero();
      assertThat(server.requests()).isEqualTo(result.requests()).isGreaterThan(25 * 10);
      assertThat(server.accepted()).isEqualTo(25);
      assertThat(result.connectionsOpened()).isEqualTo(25);
      await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(server.open()).isZero());
    }
  }

  @Test
  void run_serverClosesAfterEachResponse_reconnectsForEveryRequestWithoutErrors() throws Exception {
    String closing = "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok";
    try (ScriptedServer server = new ScriptedServer(n -> ScriptedServer.Reply.closing(closing))) {
      StepResult result = new LoadDriver().run(quick(5), List.of(server.target()));

      assertThat(result.errorCount()).as(result.toString()).isZero();
      assertThat(server.accepted()).isEqualTo(server.requests()).isEqualTo((int) result.requests());
      assertThat(result.connectionsOpened()).isEqualTo(result.requests());
    }
  }

  @Test
  void run_interrupted_throwsSoonAndClosesEverySocket() throws Exception {
    try (ScriptedServer server = new ScriptedServer(n -> ScriptedServer.Reply.of(ScriptedServer.OK))) {
      LoadProfile long30s = quick(5).withTiming(Duration.ZERO, Duration.ofSeconds(30), Duration.ofSeconds(2));
      CompletableFuture<Throwable> outcome = new CompletableFuture<>();
      Thread runner = new Thread(() -> {
        try {
          new LoadDriver().run(long30s, List.of(server.target()));
          outcome.complete(null);
        } catch (InterruptedException | RuntimeException e) {
          outcome.complete(e);
        }
      }, "test-load-runner");
      runner.start();
      await().atMost(Duration.ofSeconds(5)).until(() -> server.requests() > 20);

      runner.interrupt();

      assertThat(outcome.get(3, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
      await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(server.open()).isZero());
    }
  }

  @Test
  void run_twoEventLoops_shareTheUsers_eachUserStillOnOneConnection() throws Exception {
    try (NioOkServer server = new NioOkServer()) {
      StepResult result = new LoadDriver(DriverSettings.DEFAULT.withEventLoops(2)).run(quick(50),
          List.of(server.target()));

      assertThat(result.errorCount()).as(result.toString()).isZero();
      assertThat(server.accepted()).isEqualTo(50);
      assertThat(server.requests()).isEqualTo(result.requests());
      await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(server.open()).isZero());
    }
  }

  @Test
  void run_noTargets_isRefused() {
    assertThatThrownBy(() -> new LoadDriver().run(quick(1), List.of()))
        .isInstanceOf(InvalidConfigException.class)
        .hasMessageContaining("targets = []");
  }

  private static Set<Integer> usersOf(SessionPageServer server) {
    return server.hits().stream().map(Hit::user).collect(toSet());
  }
}
