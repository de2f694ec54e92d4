package io.tandem.tomcat;

import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import io.tandem.core.replicator.Admission;
import io.tandem.core.replicator.FlushOutcome;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Pattern;
import org.apache.catalina.Session;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ValveBase;

/**
 * Installed by {@link TandemManager} itself, first in the context's pipeline: re-routes a session found under another node's jvmRoute (the cookie
 * is re-issued so a sticky load balancer follows), tracks the request's attribute reads, and replicates the
 * sessions the request used when it ends, or when an async request completes. Answers 503 instead of running the
 * request when the session cannot be trusted here (after a pause, see the engine's admission) or cannot be taken
 * over now. In SYNC mode it answers instead of the application's response: 503 when the request's changes are not
 * confirmed on two nodes (another node took the session over, or no buddy acknowledged within the ack and settle
 * timeouts), 500 when a value the request stored cannot be replicated; in both modes 503 when an invalidation the
 * request made was not acknowledged by the buddy. A response that commits before the request ends (a page larger than
 * the response buffer, a flush, an asynchronous request) is held to the same contract by its {@link CommitGuard}.
 */
final class TandemValve extends ValveBase {
  private final TandemManager manager;

  TandemValve(TandemManager manager) {
    super(true);
    this.manager = manager;
  }

  @Override
  public void invoke(Request request, Response response) throws IOException, ServletException {
    RequestTracking.newRequest();
    Pattern skip = manager.skipPattern();
    if (manager.engine() == null || skip != null && skip.matcher(request.getDecodedRequestURI()).matches()) {
      getNext().invoke(request, response);
      return;
    }
    // From the start: Tomcat calls access() on a session the first time the request obtains it, which may be here.
    RequestTracking tracking = RequestTracking.begin();
    CommitGuard guard = null;
    boolean completed = false;
    try {
      if (refusedBeforeRunning(request, response)) {
        return;
      }
      reroute(request);
      guard = CommitGuard.install(response, () -> replicate(tracking), manager.responses(), containerLog);
      getNext().invoke(request, response);
      completed = true;
    } finally {
      RequestTracking.end();
      if (completed && request.isAsync()) {
        // The guard replicates as the asynchronous response commits and ends; without one, only its completion shows.
        request.getAsyncContextInternal().addListener(new FlushOnComplete(tracking, guard));
      } else {
        Verdict verdict = replicate(tracking);
        boolean dealtWith = guard != null && guard.requestEnded(verdict);
        if (completed && !dealtWith) {
          answer(response, verdict);
        }
      }
    }
  }

  /**
   * Answers 503 without running the request when the session cannot be used here now; true if it did. A session
   * this node owns (the common case) is looked up once, here: the manager remembers it for the request, and
   * admission, Tomcat's own lookup and the flush all go through it and the engine's handle it keeps. Any other id
   * takes the by-id path, which takes the session over if it is held elsewhere.
   */
  private boolean refusedBeforeRunning(Request request, Response response) throws IOException {
    String requested = request.getRequestedSessionId();
    TandemSession mine = manager.ownedSession(requested);
    Admission admission = mine != null ? manager.admit(mine) : manager.admit(requested);
    if (admission.refusal().isPresent()) {
      manager.responses().notAdmitted.increment();
      unavailable(response, admission.refusal().get());
      return true;
    }
    // Admission may just have dropped an owned copy the cluster moved on from: it must then be fetched, as any other.
    boolean owned = mine != null ? mine.ownedHere() : requested != null && manager.owns(requested);
    if (requested != null && !owned) {
      Optional<String> notNow = takeOver(request, requested, admission);
      if (notNow.isPresent()) {
        // The session exists (here as a backup, or elsewhere) but could not be taken over now, e.g. its owner died
        // and the membership has not said so yet. Running without it would hand the application a new, empty
        // session in its place; a retry in a moment finds it.
        manager.responses().takeoverUnavailable.increment();
        unavailable(response, notNow.get());
        return true;
      }
    }
    return false;
  }

  /**
   * Replicates every session the request used and waits for what its SYNC contract needs; the verdict says what
   * the client may be told.
   */
  private Verdict replicate(RequestTracking tracked) {
    return RequestTracking.within(tracked, () -> replicateTracked(tracked));
  }

  private Verdict replicateTracked(RequestTracking tracked) {
    boolean sync = manager.synchronous();
    Verdict verdict = Verdict.OK;
    for (TandemSession session : tracked.sessions()) {
      FlushOutcome outcome = manager.flush(session, tracked.reads());
      if (sync) { // ASYNC promises nothing of a write: only its invalidations are confirmed (below)
        verdict = verdict.worst(Verdict.of(outcome, session.baseId()));
      }
    }
    for (CompletableFuture<FlushOutcome> confirmation : tracked.confirmations()) {
      // Invalidations and id changes stick in both modes; each future completes within the ack timeout.
      FlushOutcome outcome = confirmation.join();
      if (!outcome.isConfirmed()) {
        verdict = verdict.worst(Verdict.endUnconfirmed());
      }
    }
    String unavailable = tracked.sessionUnavailableWhileRunning();
    if (unavailable != null) {
      // In both modes: the application ran without the session the client holds (and was refused a new one).
      verdict = verdict.worst(Verdict.movedWhileRunning(unavailable));
    }
    if (sync && tracked.refusedSomething()) {
      verdict = verdict.worst(Verdict.notReplicable(""));
    }
    if (verdict.kind() == Verdict.Kind.NOT_REPLICABLE && !tracked.notReplicableValues().isEmpty()) {
      verdict = Verdict.notReplicable(String.join("; ", tracked.notReplicableValues()));
    }
    return verdict;
  }

  /**
   * "200 OK" in SYNC mode promises the request's changes are on two nodes; when they are not, the client must not
   * be told they are. A response committed before the request ended is the {@link CommitGuard}'s; one committed here
   * all the same (its commit could not be seen in this Tomcat) is logged and counted.
   */
  private void answer(Response response, Verdict verdict) throws IOException {
    if (verdict.kind() == Verdict.Kind.OK) {
      return;
    }
    verdict.count(manager.responses());
    if (response.isCommitted()) {
      manager.responses().alreadyCommitted.increment();
      containerLog.warn("Tandem: the response was already sent, but " + verdict.why());
      return;
    }
    if (verdict.kind() == Verdict.Kind.NOT_REPLICABLE) {
      response.reset();
      response.sendError(HttpServletResponse.SC_INTERNAL_SERVER_ERROR, "Tandem: " + verdict.why());
    } else {
      unavailable(response, verdict.why());
    }
  }

  private static void unavailable(Response response, String why) throws IOException {
    RequestTracking.answeredUnavailable(why); // an error page Tomcat forwards to next gets no new session either
    response.reset();
    response.setHeader("Retry-After", "1");
    response.sendError(HttpServletResponse.SC_SERVICE_UNAVAILABLE, "Tandem: " + why);
  }

  /** Brings in a session this node does not own before the request runs; why not when it must be retried. */
  private Optional<String> takeOver(Request request, String requested, Admission admission) {
    boolean exists = admission.fetchFirst() || manager.holdsBackupOf(requested);
    try {
      Optional<String> unavailable = manager.bringIn(requested);
      if (unavailable.isPresent()) {
        return Optional.of(unavailable.get() + "; retry");
      }
    } catch (IOException e) {
      return Optional.of("session " + requested + " could not be taken over: " + e.getMessage() + "; retry");
    }
    return exists && request.getSessionInternal(false) == null
        ? Optional.of("session " + requested + " could not be fetched from the cluster; retry") : Optional.empty();
  }

  /** A session found under another jvmRoute now lives here: give the client the id with this node's route. */
  private void reroute(Request request) {
    String requested = request.getRequestedSessionId();
    if (requested == null) {
      return;
    }
    Session session = request.getSessionInternal(false);
    if (session != null && !session.getIdInternal().equals(requested)) {
      request.changeSessionId(session.getIdInternal());
      // A FORM login in progress remembers the id its form was served under; it is the same session.
      if (requested.equals(session.getNote(org.apache.catalina.authenticator.Constants.SESSION_ID_NOTE))) {
        session.setNote(org.apache.catalina.authenticator.Constants.SESSION_ID_NOTE, session.getIdInternal());
      }
    }
  }

  /**
   * Tells the {@link CommitGuard} that an asynchronous request completed (a response Tomcat closed while the request
   * ran ends then). Without a guard (the response's commit cannot be seen in this Tomcat) it replicates the request's
   * changes itself: the response is not held, and the log and the counters say so.
   */
  private final class FlushOnComplete implements AsyncListener {
    private final RequestTracking tracked;
    private final CommitGuard guard;

    FlushOnComplete(RequestTracking tracked, CommitGuard guard) {
      this.tracked = tracked;
      this.guard = guard;
    }

    @Override
    public void onComplete(AsyncEvent event) {
      if (guard != null) {
        guard.asyncCompleted();
        return;
      }
      Verdict verdict = replicate(tracked);
      if (verdict.kind() != Verdict.Kind.OK) {
        verdict.count(manager.responses());
        manager.responses().alreadyCommitted.increment();
        containerLog.warn("Tandem: an asynchronous request completed, but " + verdict.why());
      }
    }

    @Override
    public void onTimeout(AsyncEvent event) {}

    @Override
    public void onError(AsyncEvent event) {}

    @Override
    public void onStartAsync(AsyncEvent event) {}
  }
}
