package io.tandem.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.core.codec.CodecKind;
import io.tandem.core.config.ReplicationScope;
import io.tandem.core.replicator.FlushOutcome;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Runs each benchmark configuration for a few requests, outside JMH, to prove the benchmark measures what it
 * claims: every request is replicated and the buddy ends with the owner's attributes. Bytes are deterministic, so
 * their ordering across scopes is checked; time is not asserted anywhere.
 */
class ScopeReplicationBenchmarkTest {

  @Test
  void everyScopeAndCodec_replicatesTheGrowingSession_andOnlyTheAttributeScopeSendsLess() throws Exception {
    for (CodecKind codec : CodecKind.values()) {
      Map<ReplicationScope, Long> bytesPerRequest = new EnumMap<>(ReplicationScope.class);
      for (ReplicationScope scope : ReplicationScope.values()) {
        ScopeReplicationBenchmark benchmark = new ScopeReplicationBenchmark();
        benchmark.scope = scope;
        benchmark.codec = codec;
        benchmark.values = "STRING";
        benchmark.setUp();
        try {
          long before = benchmark.wireBytesSoFar();
          ScopeReplicationBenchmark.Wire wire = new ScopeReplicationBenchmark.Wire();
          for (int i = 0; i < 10; i++) {
            assertThat(benchmark.request(wire)).isEqualTo(FlushOutcome.REPLICATED);
          }
          bytesPerRequest.put(scope, (benchmark.wireBytesSoFar() - before) / 10);
          assertThat(benchmark.backupAttributes()).hasSize(ScopeReplicationBenchmark.ATTRIBUTES);
        } finally {
          benchmark.tearDown();
        }
      }
      assertThat(bytesPerRequest.get(ReplicationScope.SESSION)).as(codec + " full session").isGreaterThan(20 * 1024);
      assertThat(bytesPerRequest.get(ReplicationScope.MODIFIED_SESSION)).isEqualTo(bytesPerRequest.get(ReplicationScope.SESSION));
      assertThat(bytesPerRequest.get(ReplicationScope.MODIFIED_ATTRIBUTE)).as(codec + " one attribute").isBetween(1024L, 3L * 1024);
    }
  }
}
