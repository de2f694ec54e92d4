package io.tandem.benchmarks.capacity;

import java.util.List;
import java.util.regex.Pattern;

/**
 * Which part of a node a thread works for, from its name. The rules read the Java name ({@code http-nio-23456-exec-7},
 * from a thread dump) and, where no dump could be taken, the kernel's copy of it, cut to 15 characters
 * ({@code http-nio-23456-}); with the cut names the poller and the acceptor count as request threads. The first rule
 * that matches wins; a thread no rule names is "other".
 */
final class ThreadGroups {

  static final String REQUEST_THREADS = "tomcat request threads";
  static final String POLLER = "tomcat poller";
  static final String TANDEM_TRANSPORT = "tandem transport";
  static final String TANDEM_ENGINE = "tandem engine";
  static final String HAZELCAST = "hazelcast";
  static final String TRIBES = "tomcat tribes";
  static final String JIT = "JIT";
  static final String GC_VM = "GC & VM thread";
  static final String OTHER = "other";

  private record Rule(String group, Pattern name) {}

  private static final List<Rule> RULES = List.of(
      // Tomcat's connector: "http-nio-<port>-Poller" and "-Acceptor" (with an address: "http-nio-127.0.0.1-8080-...").
      rule(POLLER, "^(https?|ajp)-nio2?-.*-(Poller|Acceptor)$"),
      // ... and its executor, "http-nio-<port>-exec-<n>"; the cut name of any connector thread.
      rule(REQUEST_THREADS, "^(https?|ajp)-nio2?-"),
      // Grizzly's selector runners ("grizzly-nio-kernel(1) SelectorRunner": Tandem's only Grizzly transport), the
      // transport's deadline sweep and member probes ("tandem-transport-timer-n1", "tandem-transport-probe-n1-1").
      rule(TANDEM_TRANSPORT, "^(grizzly-|tandem-transpor)"),
      // Hazelcast's own threads ("hz.<instance>.IO.thread-in-0") and Tandem's membership listeners on top of it.
      rule(HAZELCAST, "^(hz\\.|tandem-membersh|tandem-auth-mem)"),
      // The engine: maintenance, pause watch, the ASYNC sender and its reply thread.
      rule(TANDEM_ENGINE, "^tandem-"),
      // Tomcat's cluster for BackupManager and DeltaManager.
      rule(TRIBES, "^(Tribes-|NioReceiver|MessageDispatch|GroupChannel|TcpPing|Membership-)"),
      rule(JIT, "^(C[12] CompilerThre|Sweeper thread)"),
      // The serial collector, as the nodes run, collects on the VM thread.
      rule(GC_VM, "^(GC Thread|G1 |VM Thread|VM Periodic Tas|Service Thread|Monitor Deflati|Reference Handl|Finalizer$)"));

  /** Every group, in the order the reports list them. */
  static final List<String> ORDER =
      List.of(REQUEST_THREADS, POLLER, TANDEM_TRANSPORT, TANDEM_ENGINE, HAZELCAST, TRIBES, JIT, GC_VM, OTHER);

  private ThreadGroups() {}

  private static Rule rule(String group, String regex) {
    return new Rule(group, Pattern.compile(regex));
  }

  /** The group of the thread named {@code name} (a Java name or the kernel's cut copy). */
  static String of(String name) {
    for (Rule rule : RULES) {
      if (rule.name.matcher(name).find()) {
        return rule.group;
      }
    }
    return OTHER;
  }
}
