package io.tandem.tomcat;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/** What every embedded-Tomcat cluster IT shares: a work directory and a cluster that is always stopped. */
abstract class TomcatClusterIT {
  @TempDir Path work;

  TomcatCluster cluster;

  TomcatCluster start(int size, String scope) throws Exception {
    return start(size, size, scope, "");
  }

  TomcatCluster start(int size, String scope, String extraAttributes) throws Exception {
    return start(size, size, scope, extraAttributes);
  }

  TomcatCluster start(int size, int running, String scope, String extraAttributes) throws Exception {
    cluster = new TomcatCluster(work, size, running, scope, extraAttributes);
    return cluster;
  }

  @AfterEach
  void stopCluster() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }
}
