package io.tandem.tomcat;

import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.ServletException;
import java.io.IOException;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.catalina.Session;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ValveBase;

/**
 * Installed by {@link TandemManager} itself, first in the context's pipeline: re-routes a session found under another node's jvmRoute (the cookie
 * is re-issued so a sticky load balancer follows), tracks the request's attribute reads, and replicates the
 * session when the request ends, or when an async request completes.
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
      } else {
        flush(request, reads);
      }
    }
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

  private void flush(Request request, Set<String> reads) {
    Session session = request.getSessionInternal(false);
    if (session instanceof TandemSession tandem && tandem.isValid()) {
      manager.flush(tandem, reads);
    }
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
