package io.tandem.tomcat;

import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import io.tandem.core.replicator.Admission;
import io.tandem.core.replicator.FlushOutcome;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.catalina.Session;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ValveBase;

/**
 * Installed by {@link TandemManager} itself, first in the context's pipeline: re-routes a session found under another node's jvmRoute (the cookie
 * is re-issued so a sticky load balancer follows), tracks the request's attribute reads, and replicates the
 * session when the request ends, or when an async request completes. Answers 503 instead of running the request when
 * the session cannot be trusted here (after a pause, see the engine's admission), and instead of "200 OK" when SYNC
 * replication found the session had moved on and the request's changes were dropped.
 */
final class TandemValve extends ValveBase {
  private final TandemManager manager;

  TandemValve(TandemManager manager) {
    super(true);
    this.manager = manager;
  }

  @Override
  public void invoke(Request request, Response response) throws IOException, ServletException {
    Pattern skip = manager.skipPattern();
    if (manager.engine() == null || skip != null && skip.matcher(request.getDecodedRequestURI()).matches()) {
      getNext().invoke(request, response);
      return;
    }
    String requested = request.getRequestedSessionId();
    Admission admission = manager.admit(requested);
    if (admission.refusal().isPresent()) {
      unavailable(response, admission.refusal().get());
      return;
    }
    if (requested != null && !manager.owns(requested)) {
      Optional<String> notNow = takeOver(request, requested, admission);
      if (notNow.isPresent()) {
        // The session exists (here as a backup, or elsewhere) but could not be taken over now, e.g. its owner died
        // and the membership has not said so yet. Running without it would hand the application a new, empty
        // session in its place; a retry in a moment finds it.
        unavailable(response, notNow.get());
        return;
      }
    }
    reroute(request);
    RequestReads.begin();
    boolean async = false;
    try {
      getNext().invoke(request, response);
      async = request.isAsync();
    } finally {
      Set<String> reads = RequestReads.end();
      if (async) {
        request.getAsyncContextInternal().addListener(new FlushOnComplete(request, reads));
      } else if (flush(request, reads) == FlushOutcome.FENCED && manager.synchronous()) {
        refuseLostWrite(request, response);
      }
    }
  }

  /**
   * In SYNC mode "200 OK" promises the change survives; a change made on a copy another node had already taken over
   * is dropped with that copy, so the client must not be told it happened. Once the response is committed it is too
   * late to say so; the log says it instead.
   */
  private void refuseLostWrite(Request request, Response response) throws IOException {
    String why = "session " + request.getRequestedSessionId() + " had moved to another node; this request's changes were not kept, retry it";
    if (response.isCommitted()) {
      containerLog.warn("Tandem: the response was already sent, but " + why);
      return;
    }
    unavailable(response, why);
  }

  private static void unavailable(Response response, String why) throws IOException {
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

  private FlushOutcome flush(Request request, Set<String> reads) {
    Session session = request.getSessionInternal(false);
    if (session instanceof TandemSession tandem && tandem.isValid()) {
      return manager.flush(tandem, reads);
    }
    return FlushOutcome.NOTHING;
  }

  private final class FlushOnComplete implements AsyncListener {
    private final Request request;
    private final Set<String> reads;

    FlushOnComplete(Request request, Set<String> reads) {
      this.request = request;
      this.reads = reads;
    }

    @Override
    public void onComplete(AsyncEvent event) {
      flush(request, reads);
    }

    @Override
    public void onTimeout(AsyncEvent event) {}

    @Override
    public void onError(AsyncEvent event) {}

    @Override
    public void onStartAsync(AsyncEvent event) {}
  }
}
