package io.tandem.drill;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.tools.JavaCompiler;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * The two releases of the drill application that the app-redeploy drill deploys: the same pages and classes, and the
 * application's session class {@code io.tandem.drill.values.Profile} in two shapes (release 2 removes a field and adds
 * one: {@code drill-releases/<n>/Profile.java}). Both have one class name, as two builds of one application do, so they
 * cannot both be classes of this module: each is compiled here, with the JDK's compiler, into a folder of its own
 * whose classes go in that release's WAR.
 */
final class ApplicationReleases {
  /** The releases, in the order they are deployed. */
  static final List<Integer> RELEASES = List.of(1, 2);
  private static final String SOURCE = "io/tandem/drill/values/Profile.java";

  private ApplicationReleases() {}

  /** Compiles release {@code release}'s classes under {@code work/releases/<release>} and returns that folder. */
  static Path compile(Path work, int release) throws IOException {
    JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
    if (compiler == null) {
      throw new IllegalStateException("the app-redeploy drill compiles its application's two releases and needs a JDK, not a JRE ("
          + System.getProperty("java.home") + ")");
    }
    Path sources = Files.createDirectories(work.resolve("releases/" + release + "-src/io/tandem/drill/values"));
    Path source = sources.resolve("Profile.java");
    try (InputStream in = ApplicationReleases.class.getResourceAsStream("/drill-releases/" + release + "/Profile.java")) {
      if (in == null) {
        throw new IOException("drill resource /drill-releases/" + release + "/Profile.java is missing from the classpath");
      }
      Files.copy(in, source);
    }
    Path classes = Files.createDirectories(work.resolve("releases/" + release));
    StringWriter errors = new StringWriter();
    boolean compiled;
    try (StandardJavaFileManager files = compiler.getStandardFileManager(null, null, StandardCharsets.UTF_8)) {
      compiled = Boolean.TRUE.equals(compiler.getTask(errors, files, null, List.of("--release", "17", "-d", classes.toString()),
          null, files.getJavaFileObjects(source)).call());
    }
    if (!compiled) {
      throw new IllegalStateException("release " + release + "'s " + SOURCE + " does not compile: " + errors);
    }
    return classes;
  }
}
