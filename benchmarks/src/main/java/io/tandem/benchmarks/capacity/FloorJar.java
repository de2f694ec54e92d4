package io.tandem.benchmarks.capacity;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;

/**
 * Writes the {@code ack-wait-floor} setup's valve ({@code io.tandem.benchmarks.floor}) as a jar for a node's
 * {@code lib/}: Tomcat loads a context's valves from its own class loader, not the application's. The classes come
 * from the benchmark's own classpath, so the jar is always the build's.
 */
final class FloorJar {

  static final String FILE_NAME = "tandem-bench-floor.jar";

  /** The package's classes, nested ones included: the valve needs no other library than Tomcat. */
  private static final List<String> CLASSES = List.of("io/tandem/benchmarks/floor/AckWaitFloorValve.class",
      "io/tandem/benchmarks/floor/WaitHandoff.class", "io/tandem/benchmarks/floor/WaitHandoff$Waiter.class");

  private FloorJar() {}

  /** Writes the jar into {@code lib}, replacing one written before. */
  static Path writeInto(Path lib) throws IOException {
    Path jar = lib.resolve(FILE_NAME);
    try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file)) {
      for (String name : CLASSES) {
        try (InputStream in = FloorJar.class.getResourceAsStream("/" + name)) {
          if (in == null) {
            throw new IOException("benchmark class " + name + " is missing from the classpath");
          }
          out.putNextEntry(new JarEntry(name));
          in.transferTo(out);
          out.closeEntry();
        }
      }
    }
    return jar;
  }
}
