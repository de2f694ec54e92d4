package io.tandem.tomcat;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * The node's runtimes, one per cluster per JVM, counted by the contexts that use them: one per cluster name and node
 * id, since one JVM may hold several nodes (several Tomcat engines with their own jvmRoute, as the embedded tests run).
 * The first context that names a cluster starts its runtime; each later one shares it if it names the same settings, and is refused, naming
 * every attribute that differs, if not; the last one to leave closes it. A context that undeploys or reloads leaves the
 * runtime to the others.
 *
 * <p>A context naming another cluster on a port a running runtime listens on (on the same bind address, or a wildcard)
 * is refused too, naming that cluster:
 * otherwise its start would fail later with an {@code Address already in use} that says nothing of why.
 *
 * <p>Implementation notes: {@link #clusters} and {@link #closing} are guarded by {@link #lock}, which is never held
 * while a runtime starts or closes (both do network I/O): the context that creates an entry starts its runtime outside
 * the lock and completes the entry's future, which later contexts wait on; the context that releases the last lease
 * closes it outside the lock, and a runtime for the same cluster started meanwhile waits until that close ended (it
 * would bind the same ports).
 *
 * @param <R> the runtime ({@link SharedCluster} in Tomcat; a fake in tests)
 */
final class NodeRuntimes<R extends AutoCloseable> {
  /** The JVM's runtimes: the drop-in jar is loaded once, by Tomcat's common loader, so this is one per node. */
  static final NodeRuntimes<SharedCluster> JVM = new NodeRuntimes<>(SharedCluster::start);

  /** Starts a runtime for settings no running one has. */
  @FunctionalInterface
  interface Starter<R> {
    R start(RuntimeSettings settings) throws Exception;
  }

  private final Starter<R> starter;
  private final Object lock = new Object();
  @GuardedBy("lock")
  private final Map<String, Entry<R>> clusters = new HashMap<>();
  /** Runtimes whose last context left and that are closing, by cluster name: a new start waits for them. */
  @GuardedBy("lock")
  private final Map<String, CompletableFuture<Void>> closing = new HashMap<>();

  private static final class Entry<R> {
    final RuntimeSettings settings;
    final String firstContext;
    final CompletableFuture<R> started = new CompletableFuture<>();
    /** Guarded by the registry's lock. */
    int users = 1;

    Entry(RuntimeSettings settings, String firstContext) {
      this.settings = settings;
      this.firstContext = firstContext;
    }
  }

  NodeRuntimes(Starter<R> starter) {
    this.starter = starter;
  }

  /** A context's use of a runtime; closing it releases the runtime (once). */
  final class Lease implements AutoCloseable {
    private final String cluster;
    private final Entry<R> entry;
    private final R runtime;
    @GuardedBy("this")
    private boolean released;

    private Lease(String cluster, Entry<R> entry, R runtime) {
      this.cluster = cluster;
      this.entry = entry;
      this.runtime = runtime;
    }

    R runtime() {
      return runtime;
    }

    /** Whether this context started the runtime (it was the first to name the cluster). */
    boolean first(String context) {
      return entry.firstContext.equals(context);
    }

    @Override
    public void close() {
      synchronized (this) {
        if (released) {
          return;
        }
        released = true;
      }
      release(cluster, entry, runtime);
    }
  }

  /**
   * The runtime of {@code settings}' cluster for {@code context}: the running one, or one started now.
   *
   * @throws ClusterSettingsMismatchException when the cluster runs with other settings, or another cluster's runtime
   *     listens on one of its ports
   * @throws Exception what starting the runtime threw
   */
  Lease acquire(String context, RuntimeSettings settings) throws Exception {
    String name = key(settings);
    Entry<R> entry;
    boolean mine;
    CompletableFuture<Void> previousClose;
    synchronized (lock) {
      entry = clusters.get(name);
      mine = entry == null;
      if (entry != null) {
        List<String> differences = settings.differences(entry.settings);
        if (!differences.isEmpty()) {
          throw new ClusterSettingsMismatchException("Context [" + context + "] names cluster [" + settings.cluster().clusterName() + "] as node ["
              + settings.cluster().nodeId() + "], which this"
              + " node already runs for context [" + entry.firstContext + "] with other settings; every context of a"
              + " node that names one cluster must give it the same settings (or name another cluster on other ports)."
              + " The settings that differ:\n  - " + String.join("\n  - ", differences), differences);
        }
        entry.users++;
      } else {
        List<String> clashes = portClashes(settings);
        if (!clashes.isEmpty()) {
          throw new ClusterSettingsMismatchException("Context [" + context + "] names cluster [" + settings.cluster().clusterName() + "] as node ["
              + settings.cluster().nodeId() + "] on ports"
              + " another runtime of this JVM listens on (a node's contexts that name one cluster must name the same"
              + " clusterName and nodeId, or they are taken for two nodes):\n  - " + String.join("\n  - ", clashes), clashes);
        }
        entry = new Entry<>(settings, context);
        clusters.put(name, entry);
      }
      previousClose = closing.getOrDefault(name, CompletableFuture.completedFuture(null));
    }
    if (!mine) {
      try {
        return new Lease(name, entry, entry.started.get());
      } catch (ExecutionException e) {
        forget(name, entry); // its starter removed it already; the users it counted went with it
        throw new IllegalStateException("the runtime of cluster [" + name + "] failed to start for context ["
            + entry.firstContext + "]: " + e.getCause(), e.getCause());
      }
    }
    try {
      previousClose.get(); // a runtime of this cluster closing binds the same ports until it is closed
      R runtime = starter.start(settings);
      entry.started.complete(runtime);
      return new Lease(name, entry, runtime);
    } catch (Exception | Error e) {
      entry.started.completeExceptionally(e);
      forget(name, entry);
      throw e;
    }
  }

  /** How a runtime is known: {@code clusterName/nodeId}. */
  static String key(RuntimeSettings settings) {
    return settings.cluster().clusterName() + "/" + settings.cluster().nodeId();
  }

  /** Runtimes running now ({@code clusterName/nodeId}), for tests and diagnostics. */
  List<String> running() {
    synchronized (lock) {
      return new ArrayList<>(clusters.keySet());
    }
  }

  /** Contexts using the runtime {@code cluster} ({@code clusterName/nodeId}) now (0 when none runs). */
  int users(String cluster) {
    synchronized (lock) {
      Entry<R> entry = clusters.get(cluster);
      return entry == null ? 0 : entry.users;
    }
  }

  private void forget(String name, Entry<R> entry) {
    synchronized (lock) {
      clusters.remove(name, entry);
    }
  }

  private void release(String name, Entry<R> entry, R runtime) {
    CompletableFuture<Void> closed;
    synchronized (lock) {
      if (--entry.users > 0 || !clusters.remove(name, entry)) {
        return;
      }
      closed = new CompletableFuture<>();
      closing.put(name, closed);
    }
    try {
      runtime.close();
    } catch (Exception e) {
      System.getLogger(NodeRuntimes.class.getName()).log(System.Logger.Level.WARNING,
          "The runtime of cluster [" + name + "] did not close cleanly", e);
    } finally {
      synchronized (lock) {
        closing.remove(name, closed);
      }
      closed.complete(null);
    }
  }

  /** Whether two bind addresses can collide on a port: the same one, or a wildcard that takes every interface. */
  private static boolean sameInterface(String a, String b) {
    return a.equals(b) || isWildcard(a) || isWildcard(b);
  }

  private static boolean isWildcard(String address) {
    return address.equals("0.0.0.0") || address.equals("::") || address.equals("[::]") || address.equals("*");
  }

  @GuardedBy("lock")
  private List<String> portClashes(RuntimeSettings settings) {
    List<String> clashes = new ArrayList<>();
    ClusterSettings mine = settings.cluster();
    for (Map.Entry<String, Entry<R>> running : clusters.entrySet()) {
      ClusterSettings theirs = running.getValue().settings.cluster();
      if (!sameInterface(mine.bindAddress(), theirs.bindAddress())) {
        continue; // one JVM may hold nodes on several addresses of a host (each pod's address, in the tests)
      }
      for (int port : new int[] {mine.transportPort(), mine.membershipPort()}) {
        if (port == theirs.transportPort() || port == theirs.membershipPort()) {
          clashes.add("port " + port + " is used by the runtime of cluster/node [" + running.getKey() + "] (started by context ["
              + running.getValue().firstContext + "])");
        }
      }
    }
    return clashes;
  }
}
