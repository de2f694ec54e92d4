package io.tandem.benchmarks.capacity;

/**
 * One thread's counters at one instant, from {@code /proc/<pid>/task/<tid>/stat} and {@code .../status}.
 *
 * @param tid the kernel's thread id (the {@code nid} of a Java thread dump)
 * @param comm the kernel's name of the thread (field 2): the Java name cut to 15 characters
 * @param startTicks when the thread started, in clock ticks after boot (field 22): a tid the kernel reused between
 *     two samples is another thread
 * @param userTicks CPU time in user mode (field 14, utime), in clock ticks
 * @param systemTicks CPU time in the kernel on the thread's behalf (field 15, stime), in clock ticks
 * @param voluntarySwitches times the thread gave up the CPU because it blocked (a futex, a poll, a read): each one is a
 *     later wake-up
 * @param involuntarySwitches times the scheduler took the CPU from the thread while it could still run (preempted, or
 *     its group out of CPU quota)
 */
record ThreadSample(int tid, String comm, long startTicks, long userTicks, long systemTicks, long voluntarySwitches,
    long involuntarySwitches) {

  /** USER_HZ: {@code /proc} counts CPU time in ticks of 10 ms on Linux, whatever the kernel's own tick. */
  static final long MICROS_PER_TICK = 10_000;

  /** Parses the {@code stat} line and the {@code status} text of thread {@code tid}. */
  static ThreadSample parse(int tid, String stat, String status) {
    // The name (field 2) is in parentheses and may hold spaces and parentheses itself; the fields after the last
    // closing parenthesis hold neither.
    int open = stat.indexOf('(');
    int close = stat.lastIndexOf(')');
    if (open < 0 || close < open) {
      throw new IllegalArgumentException("not a /proc stat line: " + stat);
    }
    String[] fields = stat.substring(close + 2).trim().split(" ");
    return new ThreadSample(tid, stat.substring(open + 1, close), field(fields, 22), field(fields, 14),
        field(fields, 15), statusCounter(status, "voluntary_ctxt_switches"),
        statusCounter(status, "nonvoluntary_ctxt_switches"));
  }

  /** Field {@code number} of a stat line, counted from 1 as proc(5) does; {@code afterName} starts at field 3. */
  private static long field(String[] afterName, int number) {
    return Long.parseLong(afterName[number - 3]);
  }

  private static long statusCounter(String status, String key) {
    for (String line : status.split("\n")) {
      if (line.startsWith(key + ":")) {
        return Long.parseLong(line.substring(key.length() + 1).trim());
      }
    }
    throw new IllegalArgumentException("no " + key + " in the thread's status");
  }

  /**
   * What this thread did since {@code earlier}, a sample of the same tid; everything it did, when {@code earlier} is
   * null or another thread that had the same tid.
   */
  ThreadSample since(ThreadSample earlier) {
    if (earlier == null || earlier.startTicks != startTicks) {
      return this;
    }
    return new ThreadSample(tid, comm, startTicks, userTicks - earlier.userTicks, systemTicks - earlier.systemTicks,
        voluntarySwitches - earlier.voluntarySwitches, involuntarySwitches - earlier.involuntarySwitches);
  }
}
