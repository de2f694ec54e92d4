package io.tandem.drill;

/** One fault the drill injected: what, to which node, when (epoch millis). */
record Fault(String what, String node, long atMillis) {}
