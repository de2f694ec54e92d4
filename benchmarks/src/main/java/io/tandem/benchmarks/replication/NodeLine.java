package io.tandem.benchmarks.replication;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * One line of the control protocol between the benchmark's main and a node process: a word and {@code key=value}
 * fields, separated by single spaces ({@code MARK nanoTime=1 cpuNanos=2 updates=3}). Values hold no spaces.
 * Commands go to the node's standard input; answers come from its standard output, each behind {@link #PREFIX}:
 * the JVM writes there too (JFR's start-up line), so the main skips every line without it.
 */
record NodeLine(String word, Map<String, String> fields) {
  static final String PREFIX = "@tandem-bench ";

  NodeLine {
    if (word == null || word.isEmpty() || word.contains(" ") || word.contains("=")) {
      throw new IllegalArgumentException("word '" + word + "'");
    }
    fields = Map.copyOf(fields);
  }

  static NodeLine of(String word) {
    return new NodeLine(word, Map.of());
  }

  static NodeLine parse(String line) {
    String[] parts = line.strip().split(" ");
    Map<String, String> fields = new LinkedHashMap<>();
    for (int i = 1; i < parts.length; i++) {
      int eq = parts[i].indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("not key=value: '" + parts[i] + "' in '" + line + "'");
      }
      if (fields.put(parts[i].substring(0, eq), parts[i].substring(eq + 1)) != null) {
        throw new IllegalArgumentException("field '" + parts[i].substring(0, eq) + "' twice in '" + line + "'");
      }
    }
    return new NodeLine(parts[0], fields);
  }

  String text(String key) {
    String value = fields.get(key);
    if (value == null) {
      throw new IllegalArgumentException(word + " has no field '" + key + "': " + fields);
    }
    return value;
  }

  long number(String key) {
    try {
      return Long.parseLong(text(key));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(word + " field '" + key + "' is not a number: " + fields.get(key), e);
    }
  }

  Mark mark() {
    return new Mark(number("nanoTime"), number("cpuNanos"), number("updates"));
  }

  static NodeLine of(Mark mark) {
    Map<String, String> fields = new LinkedHashMap<>();
    fields.put("nanoTime", Long.toString(mark.nanoTime()));
    fields.put("cpuNanos", Long.toString(mark.cpuNanos()));
    fields.put("updates", Long.toString(mark.updates()));
    return new NodeLine("MARK", fields);
  }

  /** The line as a node prints it. */
  String answer() {
    return PREFIX + this;
  }

  @Override
  public String toString() {
    // Map.copyOf has no order; sort so a line reads the same every time.
    return fields.isEmpty() ? word : word + " " + fields.entrySet().stream().sorted(Map.Entry.comparingByKey())
        .map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(" "));
  }
}
