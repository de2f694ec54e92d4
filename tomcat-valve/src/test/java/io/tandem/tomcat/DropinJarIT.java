package io.tandem.tomcat;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The drop-in jar as built by the package phase. It goes into Tomcat's common class loader, whose resources every web
 * application sees through its own class loader ({@code getResource}, {@code ServiceLoader}), so it may add nothing
 * outside Tandem's own packages: a top-level {@code hazelcast-default.xml}, a native library, or a service file for
 * an API an application brings (JCache) would show up in, or break, applications that never name Tandem.
 */
class DropinJarIT {
  private static final String TANDEM = "io/tandem/";
  private static final String TANDEM_SERVICE_PREFIX = "META-INF/services/io.tandem.";

  /**
   * What may sit in META-INF besides MANIFEST.MF and Tandem's own service files. Every item is inert: nothing reads
   * it by name at run time. Add to it only with the reason.
   */
  private static final List<Pattern> META_INF_ALLOWED = List.of(
      // The manifest: title and version (checked below).
      Pattern.compile("META-INF/MANIFEST\\.MF"),
      // Licence and notice files of the bundled libraries (Hazelcast, Grizzly, Objenesis, Jackson's
      // FastDoubleParser, ClassGraph and the rest listed in Hazelcast's THIRD-PARTY.txt): they must ship with them.
      Pattern.compile("META-INF/(LICENSE|LICENSE\\.txt|NOTICE|thirdparty-LICENSE|attribution\\.txt)"),
      Pattern.compile("META-INF/FastDoubleParser-(LICENSE|NOTICE)"),
      // Hazelcast's top-level notices, moved here by a raw-string relocation in the shade configuration.
      Pattern.compile("META-INF/hazelcast-(THIRD-PARTY|LICENSE-ClassGraph)\\.txt"),
      // pom.properties / pom.xml of each bundled library: what dependency scanners read to find embedded libraries.
      Pattern.compile("META-INF/maven/.+/(pom\\.properties|pom\\.xml)"),
      // Directory entries.
      Pattern.compile("META-INF/(services/|maven/.*)?"));

  private JarFile jar;

  @BeforeEach
  void open() throws IOException {
    String location = System.getProperty("tandem.dropin.jar");
    assertThat(location).as("system property tandem.dropin.jar (set by the failsafe configuration)").isNotBlank();
    Path path = Path.of(location);
    assertThat(path).as("the drop-in jar; failsafe runs after package").isRegularFile();
    jar = new JarFile(path.toFile());
  }

  @AfterEach
  void close() throws IOException {
    jar.close();
  }

  @Test
  void entries_outsideTandemPackagesAndMetaInf_none() {
    Set<String> outside = new TreeSet<>();
    for (JarEntry entry : (Iterable<JarEntry>) jar.stream()::iterator) {
      String name = entry.getName();
      boolean tandem = name.startsWith(TANDEM) || TANDEM.startsWith(name); // "io/" is io/tandem/'s directory
      boolean metaInf = name.startsWith("META-INF/") && (name.startsWith(TANDEM_SERVICE_PREFIX)
          || META_INF_ALLOWED.stream().anyMatch(p -> p.matcher(name).matches()));
      if (!tandem && !metaInf) {
        outside.add(name);
      }
    }
    assertThat(outside).as("entries of the drop-in jar outside io/tandem/ and the META-INF allow-list").isEmpty();
  }

  @Test
  void serviceFiles_nameOnlyTandemApis_andListOnlyClassesInTheJar() throws IOException {
    List<String> problems = new ArrayList<>();
    for (JarEntry entry : (Iterable<JarEntry>) jar.stream()::iterator) {
      String name = entry.getName();
      if (!name.startsWith("META-INF/services/") || entry.isDirectory()) {
        continue;
      }
      if (!name.startsWith(TANDEM_SERVICE_PREFIX)) {
        problems.add(name + " names an API an application could bring");
        continue;
      }
      try (InputStream in = jar.getInputStream(entry)) {
        for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
          String provider = line.replaceFirst("#.*", "").trim();
          if (!provider.isEmpty() && jar.getEntry(provider.replace('.', '/') + ".class") == null) {
            problems.add(name + " lists " + provider + ", which is not a class in the jar (not relocated?)");
          }
        }
      }
    }
    assertThat(problems).isEmpty();
  }

  @Test
  void manifest_namesTitleAndVersion() throws IOException {
    Attributes main = jar.getManifest().getMainAttributes();
    assertThat(main.getValue(Attributes.Name.IMPLEMENTATION_TITLE)).isNotBlank();
    assertThat(main.getValue(Attributes.Name.IMPLEMENTATION_VERSION)).isEqualTo(System.getProperty("tandem.version"));
  }

  @Test
  void entries_nativeLibraries_none() {
    List<String> natives = jar.stream().map(JarEntry::getName)
        .filter(n -> n.endsWith(".so") || n.endsWith(".dll") || n.endsWith(".dylib") || n.endsWith(".jnilib"))
        .toList();
    assertThat(natives).isEmpty();
  }

  /**
   * Kubernetes discovery is Hazelcast's own, in the jar the shade trims: its classes, the relocated service file
   * that names its strategy, and the relocated class name Hazelcast maps {@code kubernetes} to must all be there.
   * Run against the jar alone (no application class path), two members find each other through it.
   */
  @Test
  void kubernetesDiscovery_fromTheJarAlone_formsACluster() throws Exception {
    Path dropin = Path.of(System.getProperty("tandem.dropin.jar"));
    java.net.URL probeClasses = DropinDiscoveryProbe.class.getProtectionDomain().getCodeSource().getLocation();
    try (java.net.URLClassLoader loader = new java.net.URLClassLoader(
        new java.net.URL[] {dropin.toUri().toURL(), probeClasses}, ClassLoader.getPlatformClassLoader())) {
      Thread thread = Thread.currentThread();
      ClassLoader previous = thread.getContextClassLoader();
      thread.setContextClassLoader(loader);
      try {
        Object result = loader.loadClass(DropinDiscoveryProbe.class.getName())
            .getMethod("formCluster", String.class, int.class)
            .invoke(null, "dropin-k8s-" + System.nanoTime(), TomcatNode.freePort());
        List<?> answer = (List<?>) result;

        assertThat(answer.get(0).toString()).as("where the membership classes came from").endsWith(dropin.getFileName().toString());
        assertThat(answer.get(1).toString()).isEqualTo("[a, b]");
      } finally {
        thread.setContextClassLoader(previous);
      }
    }
  }
}
