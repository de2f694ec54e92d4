package io.tandem.benchmarks;

import java.math.BigDecimal;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * How the {@code ./tandem bench} commands meet bad input: one line on standard error naming the option, the value
 * and what is allowed, then exit {@link #USAGE}; no usage dump, no stack trace, and nothing started.
 */
public final class CommandLines {
  /** The exit code of bad input or a missing prerequisite (picocli's and the drill's usage code). */
  public static final int USAGE = CommandLine.ExitCode.USAGE;

  private CommandLines() {}

  /** A picocli command line for {@code command} whose parse errors are one line prefixed with {@code name}. */
  public static CommandLine of(Object command, String name) {
    return new CommandLine(command).setParameterExceptionHandler((e, args) -> {
      System.err.println(name + ": " + describe(e, name));
      return USAGE;
    });
  }

  /** Prints one usage line for {@code name} and returns {@link #USAGE}, for the checks a command makes itself. */
  public static int refuse(String name, String why) {
    System.err.println(name + ": " + oneLine(why));
    return USAGE;
  }

  /** A number as it was most likely typed: {@code -1}, not {@code -1.0}. */
  public static String plain(double value) {
    return Double.isFinite(value) ? BigDecimal.valueOf(value).stripTrailingZeros().toPlainString() : Double.toString(value);
  }

  private static String describe(ParameterException e, String name) {
    // picocli's own messages name the option and the value ("Invalid value for option '--repeats': 'x' is not an
    // int"); an unknown option gets where the known ones are listed.
    String message = oneLine(e.getMessage());
    return e instanceof UnmatchedArgumentException ? message + " (the options: " + name + " --help)" : message;
  }

  private static String oneLine(String text) {
    return String.valueOf(text).replaceAll("\\s*\\R\\s*", " ").trim();
  }
}
