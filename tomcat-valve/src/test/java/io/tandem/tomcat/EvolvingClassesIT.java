package io.tandem.tomcat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.testing.ClassVersions;
import java.net.CookieManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A rolling deploy whose session classes changed: node n1 runs version 1 of the web application and node n2 version 2
 * (the same class names with other fields, compiled at test time into each node's own {@code WEB-INF/classes}, so
 * each node's web application class loader loads its own version; see {@link EvolvingClasses}). Users work on n1,
 * n1 dies, and n2 takes their sessions over and reads what version 1 wrote.
 */
class EvolvingClassesIT extends TomcatClusterIT {

  private void deployBothVersions() {
    ClassVersions.compile(work.resolve("n1/webapp/WEB-INF/classes"), EvolvingClasses.version1());
    ClassVersions.compile(work.resolve("n2/webapp/WEB-INF/classes"), EvolvingClasses.version2());
  }

  /**
   * The default: every value is read by the new version, a field it added has its constructor's default; a login
   * whose principal class declares its serialVersionUID survives, one whose class changed without one does not (that
   * user logs in again), and that session keeps its attributes.
   */
  @Test
  void takeover_compatible_newVersionReadsTheOldValues_andOnlyAnIncompatibleLoginIsLost() throws Exception {
    deployBothVersions();
    start(2, "MODIFIED_ATTRIBUTE", "allowedClasses=\"com.example.evolving.**\"");
    TomcatNode v1 = cluster.node(0);
    TomcatNode v2 = cluster.node(1);
    Browser carol = new Browser();
    Browser dave = new Browser();
    assertThat(carol.get(v1, "/login?user=carol&pass=secret")).startsWith("logged-in ");
    carol.get(v1, "/setobj?kind=profile&name=profile&value=carol");
    carol.get(v1, "/setobj?kind=badge&name=badge&value=gold");
    assertThat(dave.get(v1, "/login?user=dave&pass=secret")).startsWith("logged-in ");
    dave.get(v1, "/set?name=cart&value=book");
    assertThat(carol.get(v1, "/get?name=profile")).isEqualTo("Profile[name=carol, visits=3]");

    cluster.crash(v1);
    await().atMost(Duration.ofSeconds(30)).until(() -> v2.manager().engine().buddy().isEmpty());

    assertThat(carol.get(v2, "/get?name=profile")).isEqualTo("Profile[name=carol, visits=3, theme=light]");
    assertThat(carol.get(v2, "/get?name=badge")).isEqualTo("Badge[gold, zone=eu]");
    assertThat(carol.get(v2, "/whoami")).isEqualTo("carol");
    assertThat(dave.get(v2, "/whoami")).isEqualTo("anonymous");
    assertThat(dave.get(v2, "/get?name=cart")).isEqualTo("book");
    assertThat(v2.manager().getAttributesUnreadable()).isZero();
    assertThat(v2.manager().getLoginsUnreadable()).isEqualTo(1);
  }

  /**
   * {@code kryoFieldSerializer="fast"}, what Tandem did before the setting existed: a value the new class cannot read
   * is dropped alone and counted, the session and its other values stay; and a value it can read by position is
   * read into the wrong fields, without an error.
   */
  @Test
  void takeover_fast_valueTheNewVersionCannotRead_isDroppedAlone_andAnotherIsReadWrong() throws Exception {
    deployBothVersions();
    start(2, "MODIFIED_ATTRIBUTE", "allowedClasses=\"com.example.evolving.**\" kryoFieldSerializer=\"fast\"");
    TomcatNode v1 = cluster.node(0);
    TomcatNode v2 = cluster.node(1);
    Browser ann = new Browser();
    ann.get(v1, "/setobj?kind=badge&name=badge&value=gold");
    ann.get(v1, "/setobj?kind=profile&name=profile&value=ann");
    ann.get(v1, "/set?name=user&value=ann");

    cluster.crash(v1);
    await().atMost(Duration.ofSeconds(30)).until(() -> v2.manager().engine().buddy().isEmpty());

    assertThat(ann.get(v2, "/get?name=badge")).isEqualTo("null");
    assertThat(ann.get(v2, "/get?name=user")).isEqualTo("ann");
    assertThat(ann.get(v2, "/get?name=profile")).isEqualTo("Profile[name=v1 only, visits=3, theme=ann]");
    assertThat(ann.get(v2, "/list")).isEqualTo("{profile=Profile[name=v1 only, visits=3, theme=ann], user=ann}");
    assertThat(v2.manager().getAttributesUnreadable()).isEqualTo(1);
  }

  /** One user: a client with its own cookies. */
  private static final class Browser {
    private final HttpClient client = HttpClient.newBuilder().cookieHandler(new CookieManager()).build();

    String get(TomcatNode node, String pathAndQuery) throws Exception {
      HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create(node.url(pathAndQuery))).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).as(pathAndQuery).isEqualTo(200);
      return response.body();
    }
  }
}
