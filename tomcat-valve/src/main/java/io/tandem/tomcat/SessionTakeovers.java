package io.tandem.tomcat;

import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import org.apache.catalina.Session;

/**
 * At most one takeover of a session at a time on this node. The tabs of one browser, or a page and its resources,
 * reach a node that does not hold their session together (the load balancer moved them at once). Were each to take
 * the session over, the later ones would race the first one's materialization: finding no session, they would
 * give the application a new, empty one, or ask the cluster for a session this node already owns and so take its
 * buddy's copy away. The first request takes the session over; requests arriving meanwhile wait for its result.
 *
 * <p>Implementation notes: {@code running} maps a session's base id to the result of its running takeover; the
 * thread that put an entry removes it when its takeover ends, so an entry never outlives its takeover.
 */
final class SessionTakeovers {
  /**
   * What a takeover gave: the session; or none, and why when the session may exist but could not be brought in
   * now (the request must then be retried rather than run with a new, empty session).
   */
  record Result(Session session, Optional<String> unavailable) {
    static final Result NOWHERE = new Result(null, Optional.empty());

    static Result found(Session session) {
      return new Result(session, Optional.empty());
    }
  }

  /** Finds or brings in the session. */
  interface Takeover {
    Result run() throws IOException;
  }

  private final ConcurrentHashMap<String, CompletableFuture<Result>> running = new ConcurrentHashMap<>();

  /** Runs {@code takeover} for {@code baseId}, or waits for the one already running and returns its result. */
  Result once(String baseId, Takeover takeover) throws IOException {
    CompletableFuture<Result> mine = new CompletableFuture<>();
    CompletableFuture<Result> theirs = running.putIfAbsent(baseId, mine);
    if (theirs != null) {
      return await(baseId, theirs);
    }
    try {
      Result result = takeover.run();
      mine.complete(result);
      return result;
    } catch (IOException | RuntimeException | Error e) {
      mine.completeExceptionally(e);
      throw e;
    } finally {
      running.remove(baseId, mine);
    }
  }

  /** Sessions being taken over now, for diagnostics and tests. */
  int inProgress() {
    return running.size();
  }

  private static Result await(String baseId, CompletableFuture<Result> takeover) throws IOException {
    try {
      return takeover.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while session " + baseId + " was being taken over by another request", e);
    } catch (ExecutionException e) {
      throw new IOException("taking over session " + baseId + " failed in another request: " + e.getCause(), e.getCause());
    }
  }
}
