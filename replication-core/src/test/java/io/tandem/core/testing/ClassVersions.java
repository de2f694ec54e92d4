package io.tandem.core.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;

/**
 * One version of an application's classes, compiled at test time from source: two versions of a class with the same
 * name and different fields, as two deployments of an application have, each in its own directory and loaded by its
 * own class loader (as each node's web application class loader loads its own {@code WEB-INF/classes}).
 */
public final class ClassVersions {
  private ClassVersions() {}

  /**
   * Compiles {@code sources} (fully qualified class name to source text) into {@code directory}, which then holds
   * the class files in their package folders.
   *
   * @throws IllegalStateException with the compiler's messages when a source does not compile
   */
  public static Path compile(Path directory, Map<String, String> sources) {
    JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
    if (compiler == null) {
      throw new IllegalStateException("no Java compiler in this runtime (a JRE, not a JDK?)");
    }
    List<JavaFileObject> units = new ArrayList<>();
    sources.forEach((name, text) -> units.add(new Source(name, text)));
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    try {
      Files.createDirectories(directory);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<String> options = List.of("-d", directory.toString(), "--release", "17", "-proc:none", "-nowarn");
    if (!compiler.getTask(null, null, diagnostics, options, null, units).call()) {
      throw new IllegalStateException("the test's classes do not compile: " + diagnostics.getDiagnostics());
    }
    return directory;
  }

  /** A loader of the classes in {@code directory} (a {@link #compile} result) that delegates the rest to {@code parent}. */
  public static URLClassLoader loader(Path directory, ClassLoader parent) {
    try {
      return new URLClassLoader("classes-" + directory.getFileName(), new URL[] {directory.toUri().toURL()}, parent);
    } catch (MalformedURLException e) {
      throw new IllegalArgumentException(e);
    }
  }

  private static final class Source extends SimpleJavaFileObject {
    private final String text;

    Source(String className, String text) {
      super(URI.create("string:///" + className.replace('.', '/') + Kind.SOURCE.extension), Kind.SOURCE);
      this.text = text;
    }

    @Override
    public CharSequence getCharContent(boolean ignoreEncodingErrors) {
      return text;
    }
  }
}
