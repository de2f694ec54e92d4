package io.tandem.benchmarks.capacity;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * What the build put in {@code benchmarks/target} for the benchmark to run: the unpacked Tomcat distribution every
 * node runs, and Tandem's drop-in jar.
 */
record BenchHome(Path catalinaHome, Path dropin) {

  static BenchHome in(Path target) throws IOException {
    Path dist = target.resolve("dist");
    Path home;
    try (Stream<Path> entries = Files.isDirectory(dist) ? Files.list(dist) : Stream.empty()) {
      home = entries.filter(p -> p.getFileName().toString().startsWith("apache-tomcat-")).findFirst()
          .orElseThrow(() -> new IllegalArgumentException("no Tomcat distribution under " + dist
              + "; build it with ./mvnw install -DskipTests -pl benchmarks -am"));
    }
    Path dropin = target.resolve("dropin/tomcat-valve-dropin.jar");
    if (!Files.isRegularFile(dropin)) {
      throw new IllegalArgumentException("the drop-in jar " + dropin
          + " is missing; build it with ./mvnw install -DskipTests -pl benchmarks -am");
    }
    return new BenchHome(home, dropin);
  }

  /** The distribution's version, from its directory name. */
  String tomcatVersion() {
    return catalinaHome.getFileName().toString().substring("apache-tomcat-".length());
  }
}
