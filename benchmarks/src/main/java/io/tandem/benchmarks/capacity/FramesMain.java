package io.tandem.benchmarks.capacity;

import io.tandem.benchmarks.CommandLines;
import io.tandem.benchmarks.TandemVersion;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ./tandem bench --frames}: whose Java code a node ran, from the JFR recording of a {@code --jfr} run. */
@Command(name = "tandem bench --frames", mixinStandardHelpOptions = true, versionProvider = TandemVersion.class,
    description = {
        "Reads a node's JFR recording (node.jfr of a ./tandem bench --jfr run, under benchmarks/target/bench-nodes/) and "
            + "prints, per thread group, the execution samples and the share that was Tandem's own code (its threads, "
            + "or the first frame from the top that is neither the JDK's nor a shaded library's), then the methods "
            + "most often on top. Samples see Java code only: the per-thread CPU table of the run gives the kernel's "
            + "share (benchmarks/README.md)."})
public final class FramesMain implements Callable<Integer> {
  private static final String NAME = "tandem bench --frames";

  @Parameters(paramLabel = "RECORDING", description = "The node.jfr to read.")
  Path recording;

  @Option(names = "--from", description = "Count samples from this instant (ISO-8601, e.g. 2026-11-25T21:40:00Z).")
  Instant from;

  @Option(names = "--to", description = "Count samples before this instant (ISO-8601).")
  Instant to;

  /** Given by {@code ./tandem bench} to every run; a recording needs no Tomcat distribution. */
  @Option(names = "--home", hidden = true)
  Path home;

  @Override
  public Integer call() throws Exception {
    if (!Files.isRegularFile(recording)) {
      return CommandLines.refuse(NAME, "RECORDING: " + recording + " is not a file (a node.jfr of a --jfr run)");
    }
    if (from != null && to != null && !from.isBefore(to)) {
      return CommandLines.refuse(NAME, "--from " + from + " is not before --to " + to);
    }
    System.out.print(FrameShares.of(recording, from, to).describe());
    return 0;
  }

  /** Runs the command on {@code args} (with or without {@code --frames}) and returns the exit code. */
  public static int execute(String... args) {
    String[] own = Arrays.stream(args).filter(a -> !a.equals("--frames")).toArray(String[]::new);
    return CommandLines.of(new FramesMain(), NAME).execute(own);
  }
}
