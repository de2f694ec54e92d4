package io.tandem.tomcat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;
import org.apache.catalina.connector.Response;
import org.apache.coyote.ActionCode;
import org.apache.coyote.ActionHook;
import org.apache.juli.logging.Log;

/**
 * Keeps the SYNC promise for a response that commits before its request ends: replicates what the request changed
 * the moment the response commits, before its first byte leaves the node, and keeps a committed response from ending
 * cleanly when what the request changed afterwards cannot be replicated.
 *
 * <p>Where the commit is seen: Tomcat commits a response through its connector-level response's action hook (the
 * processor) whether the response buffer filled, the application flushed, the response completed or an asynchronous
 * request completed ({@code COMMIT}, or {@code CLOSE} and {@code CLIENT_FLUSH}, which commit inside the processor),
 * and the connector's own write commits first when the buffer fills. The guard stands in front of both (see {@link
 * CoyoteAccess} and {@link HeldLastByte}), so it needs nothing from the application.
 *
 * <ul>
 *   <li>At the commit, a failure is still answerable: the response becomes the contract's 500 or 503, with Tandem's
 *       message as its body, and the application's bytes are dropped (the application goes on as if written).
 *   <li>At the end (the valve's, or {@code CLOSE} for an asynchronous request) a failure is not: the response is
 *       aborted (Tomcat's {@code CLOSE_NOW}: no final chunk, the held last byte of a declared length never sent, the
 *       connection closed), so the client sees a failed request, never a clean 200.
 * </ul>
 *
 * <p>An asynchronous request's completion is reported to its listeners before Tomcat 10.1 and 11 finish its response,
 * so the guard sees that response's commit and end as it sees any other's, on the container thread that finishes it.
 * A close that comes while the request still runs (the application closed its stream; Tomcat 11 closes a response
 * whose declared length was written) is held until the request is over: the valve's end, or the completion.
 *
 * <p>Implementation notes: one guard per request, installed by the valve before the application runs and removed when
 * the response ends: at the valve's end for a request that is not asynchronous, otherwise at {@code CLOSE} or at
 * Tomcat's own {@code CLOSE_NOW}. A response is used by one thread at a time (the servlet specification's rule, which
 * Tomcat's processors rely on); {@code phase} is volatile because that thread may change between the container's and
 * the application's. A guard left behind by a response that ended without any of these sees the next request's start
 * time on the reused request object and only passes actions on, and the next request through the valve unwraps it.
 */
final class CommitGuard implements ActionHook {
  enum Phase {
    /** Nothing sent yet. */
    OPEN,
    /** Committed after the request's changes so far were replicated. */
    COMMITTED,
    /** Committed with Tandem's error in place of the application's answer. */
    ANSWERED,
    /** Ended, aborted or left behind: actions pass through. */
    ENDED
  }

  private final ActionHook processor;
  private final org.apache.coyote.Response coyote;
  private final Response response;
  private final Supplier<Verdict> replication;
  private final ResponseCounters counters;
  private final Log log;
  private final HeldLastByte output;
  /** The start of the request this guard belongs to: the connector's request object is reused by the next one. */
  private final long requestStarted;
  private volatile Phase phase = Phase.OPEN;
  /** The request ran to its end: the valve's, or an asynchronous request's completion. */
  private volatile boolean requestOver;
  /** Tomcat closed the response while the request still ran; the close is passed on when the request is over. */
  private volatile boolean closeDeferred;
  private volatile Object closeParam;

  private CommitGuard(ActionHook processor, Response response, Supplier<Verdict> replication, ResponseCounters counters,
      Log log, org.apache.coyote.OutputBuffer connectorOutput) {
    this.processor = processor;
    this.response = response;
    this.coyote = response.getCoyoteResponse();
    this.replication = replication;
    this.counters = counters;
    this.log = log;
    this.output = new HeldLastByte(connectorOutput, coyote, this);
    this.requestStarted = coyote.getRequest().getStartTimeNanos();
  }

  /**
   * Stands a guard in front of {@code response}'s connector; null where Tomcat's response cannot be reached (see
   * {@link CoyoteAccess#unavailable()}) or is already committed.
   *
   * @param replication replicates what the request changed so far and waits for what its contract needs
   */
  static CommitGuard install(Response response, Supplier<Verdict> replication, ResponseCounters counters, Log log) {
    org.apache.coyote.Response coyote = response.getCoyoteResponse();
    if (CoyoteAccess.unavailable().isPresent() || coyote.isCommitted()) {
      return null;
    }
    ActionHook current = CoyoteAccess.hook(coyote);
    ActionHook processor = current instanceof CommitGuard left ? left.processor : current;
    org.apache.coyote.OutputBuffer connector = CoyoteAccess.output(coyote);
    if (connector instanceof HeldLastByte left) {
      connector = left.connector();
    }
    if (processor == null || connector == null) {
      return null;
    }
    CommitGuard guard = new CommitGuard(processor, response, replication, counters, log, connector);
    if (!CoyoteAccess.replaceHook(coyote, current, guard)) {
      return null;
    }
    coyote.setOutputBuffer(guard.output);
    return guard;
  }

  @Override
  public void action(ActionCode code, Object param) {
    if (!guarding()) {
      processor.action(code, param);
      return;
    }
    switch (code) {
      case COMMIT, CLIENT_FLUSH -> {
        beforeCommit();
        processor.action(code, param);
      }
      case CLOSE -> closing(param);
      case CLOSE_NOW -> { // Tomcat aborts the response itself (an I/O error, an error after the commit)
        stepAside();
        processor.action(code, param);
      }
      default -> processor.action(code, param);
    }
  }

  /**
   * Whether this guard still guards its request's response; if not (it ended, or it was left behind by a response
   * that ended without passing here, an answer at commit that Tomcat finished on its own, and the connector's objects
   * now serve a later request), it steps aside and everything passes through.
   */
  boolean guarding() {
    if (phase != Phase.ENDED && coyote.getRequest().getStartTimeNanos() == requestStarted) {
      return true;
    }
    stepAside();
    return false;
  }

  /** The connector is about to write body bytes: if they commit the response, replicate first. */
  void beforeBody() {
    beforeCommit();
  }

  /**
   * The request ended (not asynchronously) and {@code verdict} says how what it changed since the commit was
   * replicated; true if the response was committed, so the guard dealt with it (the held byte sent, or the response
   * aborted), false if nothing was sent and the valve answers as before. The guard steps aside either way.
   */
  boolean requestEnded(Verdict verdict) {
    requestOver = true;
    try {
      return switch (phase) {
        case OPEN -> false;
        case ENDED -> true;
        case ANSWERED -> {
          passOnDeferredClose();
          yield true;
        }
        case COMMITTED -> {
          end(verdict);
          passOnDeferredClose();
          yield true;
        }
      };
    } finally {
      stepAside();
    }
  }

  /**
   * An asynchronous request completed. Tomcat reports it before it finishes the response, which then closes it
   * through this guard as any response; if Tomcat closed the response while the request ran, it ends here.
   */
  void asyncCompleted() {
    requestOver = true;
    if (closeDeferred && guarding()) {
      finish(closeParam);
    }
  }

  private void beforeCommit() {
    if (phase != Phase.OPEN || coyote.isCommitted()) {
      return;
    }
    Verdict verdict = replication.get();
    if (verdict.kind() == Verdict.Kind.OK) {
      phase = Phase.COMMITTED;
    } else {
      answerInstead(verdict);
    }
  }

  /** Nothing was sent: the response becomes the contract's error, and the application's bytes go nowhere. */
  private void answerInstead(Verdict verdict) {
    phase = Phase.ANSWERED;
    verdict.count(counters);
    counters.answeredAtCommit.increment();
    byte[] body = ("Tandem: " + verdict.why()).getBytes(StandardCharsets.UTF_8);
    coyote.reset();
    coyote.setStatus(verdict.status());
    if (verdict.status() == 503) {
      coyote.setHeader("Retry-After", "1");
    }
    coyote.setContentType("text/plain;charset=UTF-8");
    coyote.setContentLength(body.length);
    response.setSuspended(true);
    output.drop();
    processor.action(ActionCode.COMMIT, coyote);
    try {
      output.writeOwn(body);
    } catch (IOException e) {
      // The client went away: it holds nothing it could take for a 200.
      log.debug("Tandem: the error answered at commit could not be written: " + e);
    }
  }

  /**
   * Tomcat closes the response. At the end of a request that is the response's end: what the request changed since
   * the commit is replicated, then the response ends, or is aborted. While the request still runs (the application
   * closed its stream, or wrote the whole length it declared, which Tomcat 11 takes as the end of the response), the
   * close waits for the request's end: what the application changes afterwards must be on two nodes before the
   * response may end.
   */
  private void closing(Object param) {
    beforeCommit(); // CLOSE commits inside the processor when nothing did before
    if (!requestOver) {
      closeParam = param;
      closeDeferred = true;
      return;
    }
    finish(param);
  }

  private void finish(Object param) {
    if (phase == Phase.COMMITTED) {
      end(replication.get());
    }
    Phase now = phase;
    stepAside();
    if (now != Phase.ENDED) {
      processor.action(ActionCode.CLOSE, param);
    }
  }

  /** The request is over: a close Tomcat made while it ran reaches the connector now, unless the response was aborted. */
  private void passOnDeferredClose() {
    if (closeDeferred && phase != Phase.ENDED) {
      processor.action(ActionCode.CLOSE, closeParam);
    }
  }

  private void end(Verdict verdict) {
    if (verdict.kind() != Verdict.Kind.OK) {
      abort(verdict);
      return;
    }
    try {
      output.release();
    } catch (IOException e) {
      // The client went away before the last byte: it holds an incomplete response.
      log.debug("Tandem: the last byte of a response could not be written: " + e);
    }
  }

  private void abort(Verdict verdict) {
    phase = Phase.ENDED;
    output.drop();
    response.setSuspended(true);
    processor.action(ActionCode.CLOSE_NOW, null);
    verdict.count(counters);
    counters.aborted.increment();
    log.warn("Tandem: aborted a response that was already committed (the client sees a failed request, not a 200): "
        + verdict.why());
  }

  /** The connector's own hook and output again; later actions, if any reach this guard, pass through. */
  private void stepAside() {
    phase = Phase.ENDED;
    CoyoteAccess.replaceHook(coyote, this, processor);
    if (CoyoteAccess.output(coyote) == output) {
      coyote.setOutputBuffer(output.connector());
    }
  }
}
