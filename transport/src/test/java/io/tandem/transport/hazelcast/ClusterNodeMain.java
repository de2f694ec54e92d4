package io.tandem.transport.hazelcast;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * A {@link ClusterNode} in its own JVM, driven over stdin/stdout one line at a time so a test can kill it with
 * SIGKILL. Answers start with {@code "> "}; everything else on stdout is ignored by the driver.
 *
 * <p>Arguments: cluster nodeId transportPort hazelcastPort joinMember[,joinMember...]. Commands: {@code set <session>
 * <name> <value>}, {@code backup <session>}, {@code adopted <session>}, {@code owns <session>}, {@code stats}.
 */
public final class ClusterNodeMain {
  private ClusterNodeMain() {}

  public static void main(String[] args) throws Exception {
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    List<String> join = Arrays.asList(args[4].split(","));
    ClusterNode node = new ClusterNode(args[0], args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]), join, ClusterNode.config());
    node.start();
    out.println("> started " + node.id.value());
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      String[] words = line.trim().split(" ");
      try {
        switch (words[0]) {
          case "set" -> out.println("> " + node.set(words[1], words[2], words[3]));
          case "backup" -> out.println("> " + node.backup(words[1]).map(ClusterNodeMain::format).orElse("none"));
          case "adopted" -> out.println("> " + node.adopted(words[1]).map(ClusterNodeMain::format).orElse("none"));
          case "owns" -> out.println("> " + node.owns(words[1]));
          case "stats" -> {
            var s = node.stats();
            out.println("> owned=" + s.ownedSessions() + " unprotected=" + s.sessionsWithoutBackup() + " backups=" + s.backupSessions()
                + " buddy=" + node.engine.buddy().map(b -> b.value()).orElse("none"));
          }
          case "exit" -> {
            node.close();
            out.println("> bye");
            return;
          }
          default -> out.println("> error unknown command " + words[0]);
        }
      } catch (RuntimeException e) {
        out.println("> error " + e);
      }
    }
  }

  static String format(Map<String, Object> attributes) {
    StringBuilder text = new StringBuilder();
    attributes.forEach((k, v) -> text.append(text.length() == 0 ? "" : ",").append(k).append('=').append(v));
    return text.toString();
  }
}
