package io.tandem.benchmarks.capacity;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/** Reads every thread of a process from {@code /proc/<pid>/task}. */
final class ProcThreads {

  private ProcThreads() {}

  /** The threads of process {@code pid}; empty when {@code /proc} cannot be read (not Linux, the process gone). */
  static Map<Integer, ThreadSample> of(long pid) {
    try {
      return read(Path.of("/proc", Long.toString(pid)));
    } catch (IOException e) {
      return Map.of();
    }
  }

  /** The threads under {@code process} ({@code /proc/<pid>} or {@code /proc/self}), by tid. */
  static Map<Integer, ThreadSample> read(Path process) throws IOException {
    Map<Integer, ThreadSample> threads = new HashMap<>();
    try (DirectoryStream<Path> tasks = Files.newDirectoryStream(process.resolve("task"))) {
      for (Path task : tasks) {
        int tid = Integer.parseInt(task.getFileName().toString());
        try {
          threads.put(tid, ThreadSample.parse(tid, Files.readString(task.resolve("stat"), StandardCharsets.UTF_8),
              Files.readString(task.resolve("status"), StandardCharsets.UTF_8)));
        } catch (IOException ended) {
          // The thread ended while the directory was read (no file, or "No such process"): it is not there now.
        }
      }
    }
    return threads;
  }
}
