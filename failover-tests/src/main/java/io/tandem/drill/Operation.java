package io.tandem.drill;

/** One write in the recorded history: user {@code user} set {@code key} to {@code value}. */
record Operation(int user, String key, String value, String node, Outcome outcome, long startedMillis, long endedMillis) {}
