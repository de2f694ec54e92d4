package io.tandem.benchmarks.capacity;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The Java names of a JVM's threads by kernel thread id, from {@code jcmd <pid> Thread.print}. The kernel keeps only
 * the first 15 characters of a name, which leaves Tomcat's request threads, its poller and its acceptor all
 * {@code http-nio-23456-}; the dump tells them apart. It costs the JVM a safepoint and the dump, so the benchmark
 * takes it after the measured window closes.
 */
final class ThreadNames {

  private static final long TIMEOUT_SECONDS = 10;

  private ThreadNames() {}

  /** The names of {@code pid}'s threads; empty when the JDK has no {@code jcmd} or the dump failed. */
  static Map<Integer, String> of(long pid) {
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    if (!Files.isExecutable(jcmd)) {
      return Map.of();
    }
    Path dump = null;
    try {
      dump = Files.createTempFile("tandem-bench-threads-", ".txt");
      // To a file, not a pipe: a dump of a few hundred threads would fill the pipe, and the wait below must bound a
      // jcmd that does not get through to a node.
      Process process = new ProcessBuilder(jcmd.toString(), Long.toString(pid), "Thread.print")
          .redirectErrorStream(true).redirectOutput(dump.toFile()).start();
      if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        return Map.of();
      }
      return process.exitValue() == 0 ? parse(Files.readString(dump, StandardCharsets.UTF_8)) : Map.of();
    } catch (IOException e) {
      return Map.of();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Map.of();
    } finally {
      if (dump != null) {
        try {
          Files.deleteIfExists(dump);
        } catch (IOException ignored) {
          // a temporary file left behind
        }
      }
    }
  }

  /**
   * The names in a thread dump: every line {@code "<name>" ... nid=0x<tid> ...}, Java threads and the JVM's own
   * (compiler, GC, VM thread) alike.
   */
  static Map<Integer, String> parse(String dump) {
    Map<Integer, String> names = new HashMap<>();
    for (String line : dump.split("\n")) {
      // The last one: a name may hold anything, the attributes after it hold one nid.
      int nid = line.lastIndexOf(" nid=0x");
      if (!line.startsWith("\"") || nid < 0) {
        continue;
      }
      // The name may hold quotes; it ends at the last quote before the thread's attributes.
      int closing = line.lastIndexOf('"', nid);
      int end = nid + " nid=0x".length();
      int hexEnd = end;
      while (hexEnd < line.length() && Character.digit(line.charAt(hexEnd), 16) >= 0) {
        hexEnd++;
      }
      if (closing > 0 && hexEnd > end) {
        names.put(Integer.parseInt(line.substring(end, hexEnd), 16), line.substring(1, closing));
      }
    }
    return names;
  }
}
