package io.tandem.core.simulation;

import java.util.logging.Level;
import java.util.logging.Logger;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Silences the engine's loggers while a test class runs schedules: thousands of engines log thousands of lines, and a
 * run's trace is what tells what happened. The level is put back afterwards.
 *
 * <p>Implementation notes: the logger is held here, so that java.util.logging keeps the level set on it.
 */
final class QuietEngineLogs implements BeforeAllCallback, AfterAllCallback {
  private static final Logger ENGINE_LOGS = Logger.getLogger("io.tandem");
  private Level before;

  @Override
  public void beforeAll(ExtensionContext context) {
    before = ENGINE_LOGS.getLevel();
    ENGINE_LOGS.setLevel(Level.OFF);
  }

  @Override
  public void afterAll(ExtensionContext context) {
    ENGINE_LOGS.setLevel(before);
  }
}
