package io.tandem.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

/**
 * The Tandem version {@code ./tandem bench -V} prints: the project version, which the build writes into
 * {@code tandem-version.properties} (a filtered resource), so it needs no jar and no build of its own.
 */
public final class TandemVersion implements IVersionProvider {
  static final String RESOURCE = "tandem-version.properties";

  @Override
  public String[] getVersion() {
    return new String[] {"Tandem " + version()};
  }

  /** The project version, or why it is not known (run from sources the build did not filter). */
  public static String version() {
    try (InputStream in = TandemVersion.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        return "(version unknown: no " + RESOURCE + "; build with ./mvnw install)";
      }
      Properties properties = new Properties();
      properties.load(in);
      String version = properties.getProperty("version", "");
      // Unfiltered, the file still says ${project.version}.
      return version.isBlank() || version.contains("${") ? "(version unknown: " + RESOURCE + " was not filtered)" : version;
    } catch (IOException e) {
      return "(version unknown: " + e.getMessage() + ")";
    }
  }
}
