package io.tandem.core.simulation;

import java.util.ArrayList;
import java.util.List;

/**
 * What a run did, line by line (faults, views, client operations and, when asked, every message): printed with a
 * failing seed so the schedule can be read, and hashed to prove that a seed replays the same run.
 *
 * <p>Implementation notes: written by the thread holding the simulation's baton, and read at the end of a run;
 * synchronized all the same, for an actor that ran away (see {@link Actors}) and still writes while the run reports.
 */
final class Trace {
  private final boolean messages;
  private final int keep;
  private final List<String> lines = new ArrayList<>();
  private long hash = 1125899906842597L;
  private long count;
  private Simulation sim;

  /**
   * @param messages whether every message sent and delivered is recorded (a replay); otherwise only the run's events
   * @param keep how many of the last lines to keep for printing
   */
  Trace(boolean messages, int keep) {
    this.messages = messages;
    this.keep = keep;
  }

  void attach(Simulation simulation) {
    this.sim = simulation;
  }

  boolean recordsMessages() {
    return messages;
  }

  synchronized void add(String line) {
    String stamped = String.format("%9.3f %s", sim == null ? 0.0 : sim.nanos() / 1e9, line);
    for (int i = 0; i < stamped.length(); i++) {
      hash = 31 * hash + stamped.charAt(i);
    }
    count++;
    lines.add(stamped);
    if (lines.size() > keep * 2) {
      lines.subList(0, lines.size() - keep).clear();
    }
  }

  void message(String line) {
    if (messages) {
      add(line);
    }
  }

  synchronized long hash() {
    return hash;
  }

  synchronized long count() {
    return count;
  }

  /** The last {@code keep} lines. */
  synchronized String tail() {
    int from = Math.max(0, lines.size() - keep);
    return String.join("\n", lines.subList(from, lines.size()));
  }
}
