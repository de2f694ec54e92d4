package io.tandem.tomcat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The SYNC contract for responses that commit before their request ends, on real embedded Tomcats: a page larger
 * than the response buffer (8 KiB), chunked or with a declared {@code Content-Length}, a page the application flushes,
 * and an asynchronous request. What the request changed before the commit is replicated before the first byte leaves,
 * so a failure is still the contract's 500 or 503; what it changed after the commit is replicated before the response
 * ends, and a failure aborts it: never a clean 200. (Before {@link CommitGuard}, each page below that commits early was
 * answered a whole, clean 200 and only a WARN said the value was on one node.)
 *
 * <p>One cluster serves every case; each case starts a session of its own (a fresh cookie jar) and reads the
 * counters as they moved during it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CommittedResponsesIT {
  private TomcatCluster cluster;
  private long answeredAtCommit;
  private long notReplicable;
  private long aborted;
  private long alreadyCommitted;

  @BeforeAll
  void startTwoNodes(@TempDir Path work) throws Exception {
    // Requests for *.css are not replicated (replicationFilter): Tandem's valve leaves them alone.
    cluster = new TomcatCluster(work, 2, 2, "MODIFIED_ATTRIBUTE", "mode=\"SYNC\" replicationFilter=\".*\\.css\"");
  }

  @AfterAll
  void stopTheNodes() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  @BeforeEach
  void newUser() {
    cluster.cookies.getCookieStore().removeAll();
    ResponseCounters counters = cluster.node(0).manager().responses();
    answeredAtCommit = counters.answeredAtCommit.sum();
    notReplicable = counters.notReplicable.sum();
    aborted = counters.aborted.sum();
    alreadyCommitted = counters.alreadyCommitted.sum();
  }
  @ParameterizedTest
  @ValueSource(strings = {"bytes=32768&length=chunked&flush=none", "bytes=32768&length=declared&flush=none",
      "bytes=1024&length=chunked&flush=mid", "bytes=1024&length=declared&flush=mid"})
  void valueSetBeforeTheCommit_thatCannotBeReplicated_isAnswered500(String page) throws Exception {
    TomcatNode n1 = startWithASession();

    HttpResponse<String> answer = cluster.send(n1, "/page?name=cart&kind=nested-unlisted&value=v2&set=before&" + page);

    assertThat(answer.statusCode()).isEqualTo(500);
    assertThat(answer.body()).startsWith("Tandem: ").doesNotContain("xxxx");
    assertThat(n1.manager().responses().answeredAtCommit.sum() - answeredAtCommit).isEqualTo(1);
    assertThat(n1.manager().responses().notReplicable.sum() - notReplicable).isEqualTo(1);
    assertThat(cluster.get(n1, "/get?name=user")).as("the connection and the session still serve").isEqualTo("ann");
  }

  @ParameterizedTest
  @ValueSource(strings = {"bytes=32768&length=chunked&flush=none", "bytes=32768&length=declared&flush=none",
      "bytes=1024&length=chunked&flush=mid", "bytes=1024&length=declared&flush=mid",
      "bytes=1024&length=declared&flush=end", "bytes=200000&length=declared&flush=end",
      "bytes=1024&length=declared&flush=close", "bytes=32768&length=chunked&flush=close"})
  void valueSetAfterTheCommit_thatCannotBeReplicated_abortsTheResponse(String page) throws Exception {
    TomcatNode n1 = startWithASession();

    assertThatThrownBy(() -> cluster.send(n1, "/page?name=cart&kind=nested-unlisted&value=v2&set=after&" + page))
        .as("the client sees a failed request, not a clean 200").isInstanceOf(IOException.class);

    // Once per attempt: a page the application closed before Tomcat sent any of it is aborted before its first byte
    // left, and the JDK's client then sends the GET once more on a new connection (aborted the same way).
    assertThat(n1.manager().responses().aborted.sum() - aborted).isBetween(1L, 2L);
    assertThat(cluster.get(n1, "/get?name=user")).isEqualTo("ann");
  }

  @ParameterizedTest
  @ValueSource(strings = {"set=before&bytes=32768&length=chunked&flush=none", "set=after&bytes=32768&length=chunked&flush=none",
      "set=after&bytes=32768&length=declared&flush=none", "set=after&bytes=1024&length=declared&flush=end",
      "set=after&bytes=1024&length=declared&flush=close"})
  void replicableValue_isOnTheBuddyWhenTheWholePageArrives(String page) throws Exception {
    TomcatNode n1 = startWithASession();
    int bytes = Integer.parseInt(page.replaceAll(".*bytes=(\\d+).*", "$1"));

    HttpResponse<String> answer = cluster.send(n1, "/page?name=cart&value=v2&" + page);

    assertThat(answer.statusCode()).isEqualTo(200);
    assertThat(answer.body()).hasSize(bytes);
    assertThat(backupHas("cart")).as("on the buddy as the response ends, not later").isTrue();
    assertThat(n1.manager().responses().aborted.sum() - aborted + n1.manager().responses().answeredAtCommit.sum() - answeredAtCommit).isZero();
  }

  /** The async servlet completes with a small body: the commit happens at completion, after the worker set it. */
  @ParameterizedTest
  @ValueSource(strings = {"bytes=100&length=chunked&flush=none", "bytes=100&length=declared&flush=none"})
  void asyncRequest_valueThatCannotBeReplicated_isAnswered500_beforeTheResponseEnds(String page) throws Exception {
    TomcatNode n1 = startWithASession();

    HttpResponse<String> answer = cluster.send(n1, "/asyncpage?name=cart&kind=nested-unlisted&value=v2&set=after&" + page);

    assertThat(answer.statusCode()).isEqualTo(500);
    assertThat(n1.manager().responses().answeredAtCommit.sum() - answeredAtCommit).isEqualTo(1);
    assertThat(n1.manager().responses().alreadyCommitted.sum() - alreadyCommitted).isZero();
  }

  @ParameterizedTest
  @ValueSource(strings = {"bytes=32768&length=chunked&flush=none", "bytes=32768&length=declared&flush=none"})
  void asyncRequest_committedBeforeAValueThatCannotBeReplicated_isAborted(String page) throws Exception {
    TomcatNode n1 = startWithASession();

    assertThatThrownBy(() -> cluster.send(n1, "/asyncpage?name=cart&kind=nested-unlisted&value=v2&set=after&" + page))
        .isInstanceOf(IOException.class);

    assertThat(n1.manager().responses().aborted.sum() - aborted).isEqualTo(1);
  }

  @ParameterizedTest
  @ValueSource(strings = {"bytes=100&length=declared&flush=none", "bytes=32768&length=chunked&flush=none"})
  void asyncRequest_valueIsOnTheBuddyWhenTheResponseIsComplete(String page) throws Exception {
    TomcatNode n1 = startWithASession();

    HttpResponse<String> answer = cluster.send(n1, "/asyncpage?name=cart&value=v2&set=after&" + page);

    assertThat(answer.statusCode()).isEqualTo(200);
    assertThat(backupHas("cart")).as("on the buddy as the response ends, not later").isTrue();
  }

  private TomcatNode startWithASession() throws Exception {
    TomcatNode n1 = cluster.node(0);
    cluster.get(n1, "/set?name=user&value=ann");
    return n1;
  }

  /** Whether the buddy's copy holds {@code attribute} (no page of these tests stored it before). */
  private boolean backupHas(String attribute) {
    String base = TandemManager.stripRoute(cluster.sessionCookie());
    return cluster.node(1).manager().engine().backupOf(base).map(b -> b.attributes().containsKey(attribute)).orElse(false);
  }
}
