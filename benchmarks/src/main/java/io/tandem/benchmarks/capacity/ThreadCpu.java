package io.tandem.benchmarks.capacity;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where both nodes' CPU went over a measured window, by {@linkplain ThreadGroups thread group}, per successful
 * request. From per-thread counters at the window's open and close: a thread that ended in between is missing from
 * the close, and what it did in the window is not counted (see {@code threadsEnded}); a thread that started in
 * between counts from its start.
 *
 * @param namesFrom {@code "jcmd Thread.print"} when every node's thread dump named its threads, otherwise
 *     {@code "/proc comm (15 characters)"} for the nodes without one (see {@link ThreadGroups})
 * @param threadsEnded threads alive at the window's open and gone at its close, both nodes
 * @param groups the groups that had a thread at the close, in {@link ThreadGroups#ORDER}
 * @param all every thread at the close together
 */
public record ThreadCpu(String namesFrom, int threadsEnded, List<GroupCpu> groups, GroupCpu all) {

  static final String FROM_DUMP = "jcmd Thread.print";
  static final String FROM_COMM = "/proc comm (15 characters)";

  public ThreadCpu {
    groups = List.copyOf(groups);
  }

  /**
   * One group of threads, both nodes together, per successful request.
   *
   * @param threads the group's threads alive at the window's close
   * @param cpuMicrosPerRequest user and system time
   * @param systemMicrosPerRequest the part of it in the kernel (system calls, and the page faults and interrupts it
   *     handled for the thread)
   * @param voluntarySwitchesPerRequest times a thread blocked and so had to be woken later: wake-ups
   * @param involuntarySwitchesPerRequest times a runnable thread lost the CPU (preempted, or the node out of quota)
   */
  public record GroupCpu(String group, int threads, double cpuMicrosPerRequest, double userMicrosPerRequest,
      double systemMicrosPerRequest, double voluntarySwitchesPerRequest, double involuntarySwitchesPerRequest) {}

  /**
   * The window of one step.
   *
   * @param atOpen each node's threads when the window opened
   * @param atClose each node's threads when it closed, in the same node order
   * @param names each node's Java thread names by tid, empty where no dump was taken
   * @param requests successful requests in the window
   * @return null when nothing can be divided: no request, or no node's threads read
   */
  static ThreadCpu of(List<Map<Integer, ThreadSample>> atOpen, List<Map<Integer, ThreadSample>> atClose,
      List<Map<Integer, String>> names, long requests) {
    if (requests <= 0 || atClose.stream().allMatch(Map::isEmpty)) {
      return null;
    }
    Map<String, Totals> byGroup = new LinkedHashMap<>();
    ThreadGroups.ORDER.forEach(group -> byGroup.put(group, new Totals()));
    Totals all = new Totals();
    int ended = 0;
    for (int node = 0; node < atClose.size(); node++) {
      Map<Integer, ThreadSample> open = atOpen.get(node);
      Map<Integer, ThreadSample> close = atClose.get(node);
      for (ThreadSample thread : close.values()) {
        ThreadSample delta = thread.since(open.get(thread.tid()));
        String name = names.get(node).getOrDefault(thread.tid(), thread.comm());
        byGroup.get(ThreadGroups.of(name)).add(delta);
        all.add(delta);
      }
      for (ThreadSample thread : open.values()) {
        ThreadSample later = close.get(thread.tid());
        if (later == null || later.startTicks() != thread.startTicks()) {
          ended++;
        }
      }
    }
    List<GroupCpu> groups = new ArrayList<>();
    byGroup.forEach((group, totals) -> {
      if (totals.threads > 0) {
        groups.add(totals.perRequest(group, requests));
      }
    });
    boolean dumps = names.stream().noneMatch(Map::isEmpty);
    return new ThreadCpu(dumps ? FROM_DUMP : FROM_COMM, ended, groups, all.perRequest("all threads", requests));
  }

  /** The group named {@code group}, or null when it had no thread. */
  GroupCpu group(String group) {
    return groups.stream().filter(g -> g.group().equals(group)).findFirst().orElse(null);
  }

  /** Counters of one group being summed, on the caller's thread. */
  private static final class Totals {
    private int threads;
    private long userTicks;
    private long systemTicks;
    private long voluntary;
    private long involuntary;

    void add(ThreadSample delta) {
      threads++;
      userTicks += delta.userTicks();
      systemTicks += delta.systemTicks();
      voluntary += delta.voluntarySwitches();
      involuntary += delta.involuntarySwitches();
    }

    GroupCpu perRequest(String group, long requests) {
      double user = (double) userTicks * ThreadSample.MICROS_PER_TICK / requests;
      double system = (double) systemTicks * ThreadSample.MICROS_PER_TICK / requests;
      return new GroupCpu(group, threads, user + system, user, system, (double) voluntary / requests,
          (double) involuntary / requests);
    }
  }
}
