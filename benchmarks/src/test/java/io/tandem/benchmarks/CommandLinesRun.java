package io.tandem.benchmarks;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.function.IntSupplier;

/** A command run in-process with its standard output and error captured, for the command-line tests. */
public record CommandLinesRun(int exit, String out, String err) {

  public static CommandLinesRun of(IntSupplier command) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream previousOut = System.out;
    PrintStream previousErr = System.err;
    int exit;
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    try {
      exit = command.getAsInt();
    } finally {
      System.setOut(previousOut);
      System.setErr(previousErr);
    }
    return new CommandLinesRun(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }
}
