package io.tandem.tomcat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Replication between two Tomcats over TLS, configured with {@code tlsKeystore} on the {@code <Manager>}. */
class TlsClusterIT extends TomcatClusterIT {

  @Test
  void sessionsReplicateAndFailOverOverTls() throws Exception {
    Path keystore = work.resolve("cluster.p12");
    Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
        "-genkeypair", "-alias", "tandem", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=tandem-it",
        "-validity", "2", "-storetype", "PKCS12", "-keystore", keystore.toString(), "-storepass", "changeit", "-keypass", "changeit")
        .redirectErrorStream(true).start();
    String output = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(keytool.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(keytool.exitValue()).as(output).isZero();

    start(2, "MODIFIED_ATTRIBUTE",
        "tlsKeystore=\"" + keystore + "\" tlsKeystorePassword=\"changeit\"");
    TomcatNode n1 = cluster.node(0);
    TomcatNode n2 = cluster.node(1);
    cluster.get(n1, "/set?name=user&value=hana");

    cluster.crash(n1);
    await().atMost(Duration.ofSeconds(30)).until(() -> n2.manager().engine().buddy().isEmpty());
    assertThat(cluster.get(n2, "/get?name=user")).isEqualTo("hana");
  }
}
