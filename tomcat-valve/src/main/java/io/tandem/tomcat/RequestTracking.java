package io.tandem.tomcat;

import io.tandem.core.replicator.FlushOutcome;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * What the current request did to sessions, recorded on its thread while the application runs, so that the valve
 * can replicate and answer without looking anything up again: the session its id names when this node owns it (the
 * valve's one lookup, which the manager's {@code findSession} answers from), the sessions it obtained (Tomcat calls
 * {@code access()} on each), the attribute names it read (for the mutation policy), the invalidations and id changes
 * it made (their acknowledgements decide the response too), and values that could not be replicated.
 *
 * <p>Implementation notes: one instance per request, recorded into by the request thread from {@link #begin()} to
 * {@link #end()}; work the application hands to other threads is not recorded (its changes still reach the engine
 * through the session and are flushed with the request). It is read by whichever thread replicates: the request
 * thread, or a thread that commits or completes the response (the valve's {@link CommitGuard}), possibly while the
 * request thread still records; hence the concurrent collections.
 */
final class RequestTracking {
  private static final ThreadLocal<RequestTracking> CURRENT = new ThreadLocal<>();
  /**
   * Why the valve answered this thread's current request 503 for a session that exists: until the next request
   * through a Tandem valve, no new session on this thread. Tomcat forwards to an error page after the valve has
   * ended; a page that asks for a session (a JSP does by default) would otherwise hand the client a new cookie with
   * the 503, and a browser keeps it.
   */
  private static final ThreadLocal<String> ANSWERED_UNAVAILABLE = new ThreadLocal<>();

  // Concurrent collections: the response may commit, and so replicate, on a thread the application handed the
  // response to while the request thread still records (see CommitGuard).
  private final Set<TandemSession> sessions = ConcurrentHashMap.newKeySet(); // sessions do not override equals
  private final Set<String> reads = ConcurrentHashMap.newKeySet();
  private final List<CompletableFuture<FlushOutcome>> confirmations = new CopyOnWriteArrayList<>();
  private final List<String> notReplicable = new CopyOnWriteArrayList<>();
  private volatile boolean refused;
  /** The id the request carried, the session the valve found owned here for it, and that session's id then. */
  private String requestedId;
  private TandemSession owned;
  private String ownedId;
  /** A session id (without route) the cluster was asked for in this request and holds nowhere. */
  private String foundNowhere;
  /**
   * A session the request asked for while it ran that exists but could not be had here (it moved to another node
   * after the valve admitted the request); null when none. Read by whichever thread replicates.
   */
  private volatile Unavailable unavailable;

  /** Session {@code baseId} exists but could not be had here, for the reason {@code why}. */
  private record Unavailable(String baseId, String why) {}

  private RequestTracking() {}

  static RequestTracking begin() {
    RequestTracking tracking = new RequestTracking();
    CURRENT.set(tracking);
    return tracking;
  }

  /** Ends tracking on this thread and returns what was recorded (empty when tracking had not begun). */
  static RequestTracking end() {
    RequestTracking current = CURRENT.get();
    CURRENT.remove();
    return current == null ? new RequestTracking() : current;
  }

  /**
   * Runs {@code work} with {@code tracking} current on this thread (the request's own, or the thread completing an
   * async request), so that what the flush reports lands in it.
   */
  static <T> T within(RequestTracking tracking, java.util.function.Supplier<T> work) {
    RequestTracking previous = CURRENT.get();
    CURRENT.set(tracking);
    try {
      return work.get();
    } finally {
      if (previous == null) {
        CURRENT.remove();
      } else {
        CURRENT.set(previous);
      }
    }
  }

  /** The valve found {@code session}, owned here, for the request's {@code requestedId}. */
  static void foundOwned(String requestedId, TandemSession session) {
    RequestTracking current = CURRENT.get();
    if (current != null) {
      current.requestedId = requestedId;
      current.owned = session;
      current.ownedId = session.getIdInternal();
    }
  }

  /**
   * The session the valve found owned here for this request, if {@code id} names it (the id the request carried, or
   * the session's own after a re-route) and it still has the id it had then; null otherwise.
   */
  static TandemSession foundOwned(String id) {
    RequestTracking current = CURRENT.get();
    if (current == null || current.owned == null) {
      return null;
    }
    // After an id change (a login) the old id is looked up as before: Tomcat may ask whether it is still valid.
    boolean sameId = current.ownedId.equals(current.owned.getIdInternal());
    return sameId && (id.equals(current.requestedId) || id.equals(current.ownedId)) ? current.owned : null;
  }

  /**
   * The cluster holds session {@code baseId} nowhere, as this request found: Tomcat asks the manager for the same id
   * again (whether it is valid, then to get it), and is answered without asking the cluster again.
   */
  static void foundNowhere(String baseId) {
    RequestTracking current = CURRENT.get();
    if (current != null) {
      current.foundNowhere = baseId;
    }
  }

  /** Whether this request found session {@code baseId} nowhere in the cluster already. */
  static boolean wasFoundNowhere(String baseId) {
    RequestTracking current = CURRENT.get();
    return current != null && baseId.equals(current.foundNowhere);
  }

  /**
   * Session {@code baseId}, which the application asked for while the request ran, exists but could not be had here
   * now ({@code why}): the request must not end as if it had no session, nor be given a new one in its place.
   */
  static void unavailableWhileRunning(String baseId, String why) {
    RequestTracking current = CURRENT.get();
    if (current != null) {
      current.unavailable = new Unavailable(baseId, why);
    }
  }

  /** Session {@code baseId} was had after all (a later lookup in the request brought it in): no longer a reason. */
  static void availableAgain(String baseId) {
    RequestTracking current = CURRENT.get();
    Unavailable marked = current == null ? null : current.unavailable;
    if (marked != null && marked.baseId().equals(baseId)) {
      current.unavailable = null;
    }
  }

  /** The valve answers this thread's request 503 for a session that exists ({@link #ANSWERED_UNAVAILABLE}). */
  static void answeredUnavailable(String why) {
    ANSWERED_UNAVAILABLE.set(why);
  }

  /** A new request reached a Tandem valve on this thread: what an earlier one was answered no longer applies. */
  static void newRequest() {
    ANSWERED_UNAVAILABLE.remove();
  }

  /**
   * Why this thread's request may not be given a new session, empty if it may: a session it asked for exists but
   * could not be had here; the session the valve found owned for it was dropped by Tandem meanwhile (another node
   * took it over) and not ended by the application; or the valve answered it 503 already.
   */
  static java.util.Optional<String> newSessionRefusal() {
    RequestTracking current = CURRENT.get();
    if (current == null) {
      return java.util.Optional.ofNullable(ANSWERED_UNAVAILABLE.get());
    }
    Unavailable marked = current.unavailable;
    if (marked != null) {
      return java.util.Optional.of(marked.why());
    }
    if (current.owned != null && current.owned.droppedByTandem()) {
      // Tomcat found its copy no longer valid and asks for a new session without looking the id up again.
      String why = "session " + current.owned.baseId() + " moved to another node while this request ran";
      unavailableWhileRunning(current.owned.baseId(), why);
      return java.util.Optional.of(why);
    }
    return java.util.Optional.empty();
  }

  /** Why a session this request asked for while it ran could not be had here; null if none. */
  String sessionUnavailableWhileRunning() {
    Unavailable marked = unavailable;
    return marked == null ? null : marked.why();
  }

  static void accessed(TandemSession session) {
    RequestTracking current = CURRENT.get();
    if (current != null) {
      current.sessions.add(session);
    }
  }

  static void read(String name) {
    RequestTracking current = CURRENT.get();
    if (current != null) {
      current.reads.add(name);
    }
  }

  /** An invalidation or id change this request made: the response waits for its outcome too. */
  static void mustConfirm(CompletableFuture<FlushOutcome> outcome) {
    RequestTracking current = CURRENT.get();
    if (current != null) {
      current.confirmations.add(outcome);
    }
  }

  /** Something could not be replicated: said in the 500, if the request's outcome is one. */
  static void notReplicable(String why) {
    RequestTracking current = CURRENT.get();
    if (current != null) {
      current.notReplicable.add(why);
    }
  }

  /** This request made the session hold something that cannot be replicated (a principal at login): a 500 in SYNC. */
  static void refused(String why) {
    RequestTracking current = CURRENT.get();
    if (current != null) {
      current.notReplicable.add(why);
      current.refused = true;
    }
  }

  boolean refusedSomething() {
    return refused;
  }

  Set<TandemSession> sessions() {
    return sessions;
  }

  Set<String> reads() {
    return reads;
  }

  List<CompletableFuture<FlushOutcome>> confirmations() {
    return confirmations;
  }

  List<String> notReplicableValues() {
    return notReplicable;
  }
}
