package io.tandem.testsupport;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;

/**
 * Prints one line on the console for every test or class that is skipped, with the reason: a disabled condition
 * ({@code @EnabledIf...}, {@code @Disabled}) or an aborted assumption (no Docker, no haproxy, not root for the
 * partition drill, no cgroup for the CPU cap). Registered through this jar's {@code META-INF/services}, so it
 * applies to every test of a module that has this jar as a test dependency (failover-tests, benchmarks).
 *
 * <p>Surefire and failsafe run with {@code redirectTestOutputToFile}, which sends {@code System.out} and
 * {@code System.err} to the report folder's {@code -output.txt} files, so a skip reason printed there is never seen.
 * The line is written to the process's own standard error instead ({@link FileDescriptor#err}, not the captured
 * {@code System.err}): the forked JVM's stderr is not the plugins' command channel (that is stdout), and the plugin
 * prints what arrives on it to the Maven console. Outside Maven (an IDE) the same line lands on the IDE's console.
 *
 * <p>Thread safety: JUnit calls a listener from the thread that runs the test; {@link PrintStream} serializes the
 * writes and each line is one {@code println}.
 */
public final class SkipReasonPrinter implements TestExecutionListener {
  private static final PrintStream CONSOLE =
      new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8);

  @Override
  public void executionSkipped(TestIdentifier test, String reason) {
    print(test, reason);
  }

  @Override
  public void executionFinished(TestIdentifier test, TestExecutionResult result) {
    if (result.getStatus() == TestExecutionResult.Status.ABORTED) {
      print(test, result.getThrowable().map(Throwable::getMessage).orElse(null));
    }
  }

  private static void print(TestIdentifier test, String reason) {
    CONSOLE.println(line(name(test), reason));
  }

  /** The class and method for a test method, the class for a class, else JUnit's display name. */
  static String name(TestIdentifier test) {
    return test.getSource().map(source -> {
      if (source instanceof MethodSource method) {
        return method.getClassName() + "." + method.getMethodName() + "()";
      }
      return source instanceof ClassSource type ? type.getClassName() : test.getDisplayName();
    }).orElse(test.getDisplayName());
  }

  /** The console line: {@code SKIPPED <test>: <reason>}, one line whatever the reason holds. */
  static String line(String name, String reason) {
    String why = reason == null || reason.isBlank() ? "no reason given" : reason.strip().replaceAll("\\s*\\R\\s*", " ");
    return "SKIPPED " + name + ": " + why;
  }
}
