package io.tandem.tomcat;

import io.tandem.core.replicator.Admission;
import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.apache.catalina.Session;

/**
 * Tandem's manager, counting how a request finds its session: lookups in Tomcat's map of sessions, and calls of the
 * manager's by-id paths (each of which also looks the session up in the engine). Configured by class name in a
 * real {@code context.xml}, as users configure {@link TandemManager}.
 */
public class LookupCountingManager extends TandemManager {
  final LongAdder mapLookups = new LongAdder();
  final LongAdder byIdCalls = new LongAdder();

  public LookupCountingManager() {
    sessions = new ConcurrentHashMap<>() {
      private static final long serialVersionUID = 1L;

      @Override
      public Session get(Object key) {
        mapLookups.increment();
        return super.get(key);
      }
    };
  }

  /** Both counts at once. */
  record Counts(long mapLookups, long byIdCalls) {
    Counts since(Counts before) {
      return new Counts(mapLookups - before.mapLookups, byIdCalls - before.byIdCalls);
    }
  }

  Counts counts() {
    return new Counts(mapLookups.sum(), byIdCalls.sum());
  }

  @Override
  Session findSessionById(String id) throws IOException {
    byIdCalls.increment();
    return super.findSessionById(id);
  }

  @Override
  Admission admit(String requestedId) {
    if (requestedId != null) {
      byIdCalls.increment();
    }
    return super.admit(requestedId);
  }

  @Override
  boolean owns(String requestedId) {
    byIdCalls.increment();
    return super.owns(requestedId);
  }

  @Override
  boolean holdsBackupOf(String requestedId) {
    byIdCalls.increment();
    return super.holdsBackupOf(requestedId);
  }

  @Override
  Optional<String> bringIn(String requestedId) throws IOException {
    byIdCalls.increment();
    return super.bringIn(requestedId);
  }
}
