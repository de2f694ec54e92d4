package io.tandem.benchmarks.capacity;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Real {@code /proc} lines and thread-dump lines, captured from the benchmark's nodes under a little load: 23 threads of
 * a Tandem MODIFIED_ATTRIBUTE SYNC node (Tomcat's, Grizzly's, Tandem's, Hazelcast's, the JVM's) and 3 of a
 * DeltaManager node's Tribes threads. {@code proc-tasks.txt} holds, per thread, its {@code stat} line and the two
 * context-switch lines of its {@code status}, blocks separated by a blank line; {@code thread-dump.txt} the header line
 * of each thread in {@code jcmd <pid> Thread.print} (all but the process's first thread, which the dump does not
 * list).
 */
final class ThreadSampleFixture {

  private ThreadSampleFixture() {}

  /** The captured threads by tid, parsed. */
  static Map<Integer, ThreadSample> threads() {
    Map<Integer, ThreadSample> threads = new LinkedHashMap<>();
    for (String block : resource("proc-tasks.txt").split("\n\n")) {
      String stat = block.lines().findFirst().orElseThrow();
      int tid = Integer.parseInt(stat.substring(0, stat.indexOf(' ')));
      threads.put(tid, ThreadSample.parse(tid, stat, block));
    }
    return threads;
  }

  static String dump() {
    return resource("thread-dump.txt");
  }

  static String resource(String name) {
    try (InputStream in = ThreadSampleFixture.class.getResourceAsStream("/thread-sample/" + name)) {
      if (in == null) {
        throw new IllegalStateException("test resource /thread-sample/" + name + " is missing");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
