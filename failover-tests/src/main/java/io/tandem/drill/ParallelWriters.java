package io.tandem.drill;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Several tabs of one browser hitting one session at once: each session has {@link DrillSettings#PARALLEL_TABS}
 * threads writing {@code t<tab>-<key>} without pause, so requests are in flight on the session when its owner dies.
 * Every session starts on the first node.
 *
 * <p>Implementation notes: each tab thread owns its {@link Browser}; {@code history} is concurrent.
 */
final class ParallelWriters extends UserThreads {
  private static final int WARM_WRITES = 3;
  private static final int KEYS_PER_TAB = 16;
  private final LoadBalancer balancer;
  private final int sessions;

  ParallelWriters(LoadBalancer balancer, int sessions, int minWrites, int maxWrites) {
    super(sessions * DrillSettings.PARALLEL_TABS, minWrites, maxWrites);
    this.balancer = balancer;
    this.sessions = sessions;
  }

  @Override
  public String page() {
    return "/app/session.jsp";
  }

  @Override
  public boolean numbersWrites() {
    return false;
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
          created.app().node(), Outcome.OK, false, created.status(), "", System.currentTimeMillis(), System.currentTimeMillis()));
      browsers.put(s, first);
      for (int t = 0; t < DrillSettings.PARALLEL_TABS; t++) {
        Browser tab = first.tab();
        int tabIndex = t;
        startUser("drill-session-" + s + "-tab-" + t, warmedUp -> run(session, tabIndex, tab, warmedUp));
      }
    }
  }

  private void run(int session, int tab, Browser browser, Runnable warmedUp) throws InterruptedException {
    for (int n = 0; keepWriting(n); n++) {
      String key = "t" + tab + "-" + (n % KEYS_PER_TAB);
      String value = "s" + session + "-t" + tab + "-" + n;
      long start = System.currentTimeMillis();
      String sentWith = browser.sessionId();
      Answer answer = browser.get(page() + "?action=set&name=" + key + "&value=" + value);
      history.add(new Operation(Operation.Kind.WRITE, session, tab, 0, sentWith, key, value, n, -1,
          answer.app().node(), answer.writeOutcome(), false, answer.status(), answer.cause(), start, System.currentTimeMillis()));
      if (n + 1 == WARM_WRITES) {
        warmedUp.run();
      }
      Thread.sleep(ThreadLocalRandom.current().nextInt(0, 10)); // tabs race each other on the session
    }
  }
}
