package io.tandem.core.replicator;

import io.tandem.core.config.ReplicationConfig;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Starts {@link EngineCluster}s for a test and closes every one after it, however it ended: register with
 * {@code @RegisterExtension final EngineClusters clusters = new EngineClusters();} instead of a field and an
 * {@code @AfterEach} of one's own.
 *
 * <p>Implementation notes: used by one test method at a time (JUnit makes an instance per method), so the list needs
 * no lock.
 */
final class EngineClusters implements AfterEachCallback {
  private final List<EngineCluster> started = new ArrayList<>();

  EngineCluster start(ReplicationConfig config, String... nodeIds) throws Exception {
    EngineCluster cluster = new EngineCluster(config, nodeIds);
    started.add(cluster);
    return cluster;
  }

  @Override
  public void afterEach(ExtensionContext context) {
    started.forEach(EngineCluster::close);
    started.clear();
  }
}
