package io.tandem.benchmarks.capacity;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.benchmarks.floor.AckWaitFloorValve;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FloorJarTest {

  @Test
  void theJarHoldsEveryClassOfTheFloorsPackage(@TempDir Path lib) throws Exception {
    Path jar = FloorJar.writeInto(lib);

    Path compiled = Path.of(AckWaitFloorValve.class.getResource("AckWaitFloorValve.class").toURI()).getParent();
    List<String> expected;
    try (Stream<Path> files = Files.list(compiled)) {
      expected = files.map(f -> "io/tandem/benchmarks/floor/" + f.getFileName()).filter(n -> n.endsWith(".class"))
          .sorted().toList();
    }
    try (JarFile file = new JarFile(jar.toFile())) {
      assertThat(Collections.list(file.entries()).stream().map(e -> e.getName()).sorted().toList())
          .isEqualTo(expected);
    }
  }
}
