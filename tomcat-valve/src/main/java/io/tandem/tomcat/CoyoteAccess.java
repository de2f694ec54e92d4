package io.tandem.tomcat;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Optional;
import org.apache.coyote.ActionHook;
import org.apache.coyote.OutputBuffer;
import org.apache.coyote.Response;

/**
 * The two fields of Tomcat's connector-level response that {@link CommitGuard} stands in front of: its action hook
 * (the connector's processor, through which every commit, flush and end of a response passes) and its output buffer
 * (through which every byte of the body passes on its way to the socket).
 *
 * <p>Why reflection: Tomcat offers no public way to be told that a response is about to commit. The servlet API's
 * wrappers see the application's writes but not Tomcat's own buffer filling, and {@code Response.setHook} is
 * package-private. The output buffer has a public setter but no getter. Both fields have had these names and types
 * since Tomcat 8.5 and still have in 10.1 and 11; the real-distribution tests run against both. Where they cannot
 * be reached (another Tomcat, a security manager), {@link #unavailable()} says why and the manager logs it at start.
 */
final class CoyoteAccess {
  private static final VarHandle HOOK;
  private static final VarHandle OUTPUT;
  private static final String UNAVAILABLE;

  static {
    VarHandle hook = null;
    VarHandle output = null;
    String why = null;
    try {
      MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(Response.class, MethodHandles.lookup());
      hook = lookup.findVarHandle(Response.class, "hook", ActionHook.class);
      output = lookup.findVarHandle(Response.class, "outputBuffer", OutputBuffer.class);
    } catch (ReflectiveOperationException | RuntimeException e) {
      why = e.toString();
    }
    HOOK = hook;
    OUTPUT = output;
    UNAVAILABLE = why;
  }

  private CoyoteAccess() {}

  /** Why a response's commit cannot be seen in this Tomcat; empty where it can. */
  static Optional<String> unavailable() {
    return Optional.ofNullable(UNAVAILABLE);
  }

  static ActionHook hook(Response response) {
    return (ActionHook) HOOK.getVolatile(response);
  }

  /** Puts {@code replacement} in place of {@code expected}; false if the hook is no longer {@code expected}. */
  static boolean replaceHook(Response response, ActionHook expected, ActionHook replacement) {
    return HOOK.compareAndSet(response, expected, replacement);
  }

  static OutputBuffer output(Response response) {
    return (OutputBuffer) OUTPUT.get(response);
  }
}
