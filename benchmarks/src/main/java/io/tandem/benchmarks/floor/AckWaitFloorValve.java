package io.tandem.benchmarks.floor;

import jakarta.servlet.ServletException;
import java.io.IOException;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ValveBase;

/**
 * The load benchmark's {@code ack-wait-floor} setup: no replication (the control's {@code StandardManager}), only the
 * wait a SYNC request's thread makes for its acknowledgement, released by another thread at once ({@link WaitHandoff}).
 * It stands where Tandem's valve waits, after the application and before Tomcat finishes the response. Its U* is what
 * SYNC replication could reach on this machine if the replication itself (the bytes, both nodes' transport, the
 * buddy's work, the round trip) cost nothing: a floor under SYNC's cost, not a setup to compare managers with.
 *
 * <p>Not part of Tandem: the load benchmark writes this class into a jar in each node's {@code lib/}
 * ({@code FloorJar}) and names it in the application's {@code context.xml}.
 */
public final class AckWaitFloorValve extends ValveBase {

  private volatile WaitHandoff handoff;

  public AckWaitFloorValve() {
    super(true);
  }

  @Override
  protected void startInternal() throws LifecycleException {
    handoff = new WaitHandoff("ack-wait-floor-waker");
    super.startInternal();
  }

  @Override
  protected void stopInternal() throws LifecycleException {
    super.stopInternal();
    handoff.close();
  }

  @Override
  public void invoke(Request request, Response response) throws IOException, ServletException {
    getNext().invoke(request, response);
    handoff.await();
  }
}
