package io.tandem.drill;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Several tabs of one browser hitting one session at once: each session has {@link DrillSettings#PARALLEL_TABS}
 * threads writing {@code t<tab>-<key>} without pause, so requests are in flight on the session when its owner dies.
 * Every session starts on the first node.
 *
 * <p>Implementation notes: each tab thread owns its {@link Browser}; {@code history} is concurrent.
 */
final class ParallelWriters implements Workload {
  private static final int WARM_WRITES = 3;
  private static final int KEYS_PER_TAB = 16;
  private final LoadBalancer balancer;
  private final int sessions;
  private final int minWrites;
  private final int maxWrites;
  private final Map<Integer, Browser> browsers = new ConcurrentHashMap<>();
  private final ConcurrentLinkedQueue<Operation> history = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean stop = new AtomicBoolean();
  private final CountDownLatch warm;
  private final List<Thread> threads = new ArrayList<>();

  ParallelWriters(LoadBalancer balancer, int sessions, int minWrites, int maxWrites) {
    this.balancer = balancer;
    this.sessions = sessions;
    this.minWrites = minWrites;
    this.maxWrites = maxWrites;
    this.warm = new CountDownLatch(sessions * DrillSettings.PARALLEL_TABS);
  }

  @Override
  public String page() {
    return "/app/session.jsp";
  }

  @Override
  public void start() {
    for (int s = 0; s < sessions; s++) {
      Browser first = new Browser(balancer, 0);
      int session = s;
      Answer created = first.get(page() + "?action=set&name=created&value=s" + s);
      if (created.writeOutcome() != Outcome.OK) {
        throw new IllegalStateException("could not create session " + s + ": " + created);
      }
      history.add(new Operation(Operation.Kind.WRITE, s, 0, 0, null, "created", "s" + s, -1, -1,
          created.app().node(), Outcome.OK, false, System.currentTimeMillis(), System.currentTimeMillis()));
      browsers.put(s, first);
      for (int t = 0; t < DrillSettings.PARALLEL_TABS; t++) {
        Browser tab = first.tab();
        int tabIndex = t;
        Thread thread = new Thread(() -> run(session, tabIndex, tab), "drill-session-" + s + "-tab-" + t);
        thread.setDaemon(true);
        threads.add(thread);
      }
    }
    threads.forEach(Thread::start);
  }

  @Override
  public boolean awaitWarm(Duration timeout) throws InterruptedException {
    return warm.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Override
  public void finish(Duration timeout) throws InterruptedException {
    stop.set(true);
    long deadline = System.nanoTime() + timeout.toNanos();
    for (Thread thread : threads) {
      thread.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
      if (thread.isAlive()) {
        throw new IllegalStateException(thread.getName() + " did not finish within " + timeout);
      }
    }
  }

  @Override
  public List<Operation> history() {
    return List.copyOf(history);
  }

  @Override
  public Map<Integer, Browser> browsers() {
    return Map.copyOf(browsers);
  }

  private void run(int session, int tab, Browser browser) {
    try {
      for (int n = 0; n < maxWrites && !(stop.get() && n >= minWrites); n++) {
        String key = "t" + tab + "-" + (n % KEYS_PER_TAB);
        String value = "s" + session + "-t" + tab + "-" + n;
        long start = System.currentTimeMillis();
        String sentWith = browser.sessionId();
        Answer answer = browser.get(page() + "?action=set&name=" + key + "&value=" + value);
        history.add(new Operation(Operation.Kind.WRITE, session, tab, 0, sentWith, key, value, n, -1,
            answer.app().node(), answer.writeOutcome(), false, start, System.currentTimeMillis()));
        if (n + 1 == WARM_WRITES) {
          warm.countDown();
        }
        Thread.sleep(ThreadLocalRandom.current().nextInt(0, 10)); // tabs race each other on the session
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      warm.countDown();
    }
  }
}
