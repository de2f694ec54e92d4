package io.tandem.drill;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * Prints the newest Tandem lines of the nodes' logs when a test of real Tomcat processes fails. CI keeps only what
 * the build printed, not the nodes' folders: stop 34's CI failure ({@link CommittedResponsesDistributionIT}) left
 * nothing to read but the assertion. The test class names its nodes by implementing {@link Nodes}.
 */
final class NodeLogsOnFailure implements TestWatcher {
  /** Lines quoted: enough for the seconds before a failure on two or three nodes. */
  private static final int MAX_LINES = 60;

  /** A test class whose nodes' logs explain its failures. */
  interface Nodes {
    List<TomcatProcess> nodesToQuote();
  }

  @Override
  public void testFailed(ExtensionContext context, Throwable cause) {
    if (!(context.getTestInstance().orElse(null) instanceof Nodes test)) {
      return;
    }
    List<Path> dirs = test.nodesToQuote().stream().map(node -> node.base).toList();
    StringBuilder report = new StringBuilder("The nodes' last Tandem log lines before " + context.getDisplayName() + " failed:\n");
    try {
      SessionLogLines.last(dirs, MAX_LINES).forEach(line -> report.append("  ").append(line).append('\n'));
    } catch (RuntimeException unreadable) {
      report.append("  (the logs could not be read: ").append(unreadable).append(")\n");
    }
    System.out.print(report);
  }
}
