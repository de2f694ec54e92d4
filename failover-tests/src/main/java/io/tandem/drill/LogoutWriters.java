package io.tandem.drill;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The logout-sticks workload: sequential users, all starting on the first node, write a few values (user u's n-th
 * write puts {@code u<u>-g<generation>-<n>} under {@code k<n>} and {@code seq = n}), then wait until the drill
 * says {@link #logOut()}; all log out at once (one invalidation each, not retried: a logout answered 503 is unknown),
 * then wait until the drill, which kills the owner the moment the last logout is answered and replays the old cookies,
 * says {@link #goOn()}. They go on writing as a browser would, sending the old cookie first, into new sessions.
 * Meanwhile {@code busy} more users on the same node write without think time and never log out, so the owner has
 * replication to do when the logouts come (in ASYNC, queued updates of other sessions ahead of the invalidations).
 *
 * <p>Implementation notes: each user thread owns its {@link Browser}; {@code history}, {@code loggedOut} and
 * {@code lastAnswer} are concurrent; the latches are opened by the drill thread (and counted down by the users).
 */
final class LogoutWriters extends UserThreads {
  static final String PAGE = "/app/session.jsp";
  private static final int WRITES_BEFORE_LOGOUT = 5;
  private static final Duration PATIENCE = Duration.ofMinutes(3);
  private final LoadBalancer balancer;
  private final int users;
  private final int busy;
  private final CountDownLatch logOut = new CountDownLatch(1);
  private final CountDownLatch answered;
  private final CountDownLatch goOn = new CountDownLatch(1);
  /** User -> the session id whose logout was acknowledged. */
  private final Map<Integer, String> loggedOut = new ConcurrentHashMap<>();
  private final AtomicLong firstAnswer = new AtomicLong(Long.MAX_VALUE);
  private final AtomicLong lastAnswer = new AtomicLong();

  /**
   * @param users users who log out
   * @param busy users who write without think time and never log out (accounts {@code users..users+busy-1})
   */
  LogoutWriters(LoadBalancer balancer, int users, int busy, int minWrites, int maxWrites) {
    super(users + busy, Math.max(minWrites, WRITES_BEFORE_LOGOUT + 1), Math.max(maxWrites, WRITES_BEFORE_LOGOUT + 1));
    this.balancer = balancer;
    this.users = users;
    this.busy = busy;
    this.answered = new CountDownLatch(users);
  }

  @Override
  public String page() {
    return PAGE;
  }

  @Override
  public void start() {
    for (int u = 0; u < users; u++) {
      Browser browser = new Browser(balancer, 0);
      browsers.put(u, browser);
      int user = u;
      startUser("drill-logout-" + u, warmedUp -> run(user, browser, warmedUp));
    }
    for (int u = users; u < users + busy; u++) {
      Browser browser = new Browser(balancer, 0);
      browsers.put(u, browser);
      int user = u;
      startUser("drill-busy-" + u, warmedUp -> keepBusy(user, browser, warmedUp));
    }
  }

  private void keepBusy(int user, Browser browser, Runnable warmedUp) {
    for (int n = 0; keepWriting(n); n++) {
      write(user, browser, 0, n);
      if (n + 1 == WRITES_BEFORE_LOGOUT) {
        warmedUp.run();
      }
    }
  }

  /** Every user logs out now. */
  void logOut() {
    logOut.countDown();
  }

  /** Waits until every user's logout was answered (or came to nothing); false if not within {@code timeout}. */
  boolean awaitLogoutsAnswered(Duration timeout) throws InterruptedException {
    return answered.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Epoch millis of the first and the last logout answer. */
  long[] logoutAnswerSpan() {
    return new long[] {firstAnswer.get(), lastAnswer.get()};
  }

  /** The users go on writing after their logout. */
  void goOn() {
    goOn.countDown();
  }

  /** User to the session id whose logout was acknowledged. */
  Map<Integer, String> loggedOut() {
    return Map.copyOf(loggedOut);
  }

  @Override
  public List<String> notes() {
    return List.of(loggedOut.size() + " of " + users + " logouts acknowledged");
  }

  private void run(int user, Browser browser, Runnable warmedUp) throws InterruptedException {
    int n = 0;
    try {
      for (; n < WRITES_BEFORE_LOGOUT; n++) {
        write(user, browser, 0, n);
        Thread.sleep(ThreadLocalRandom.current().nextInt(20, 60)); // think time between a user's pages
      }
      warmedUp.run();
      if (!logOut.await(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)) {
        return;
      }
      logOut(user, browser);
    } finally {
      answered.countDown();
    }
    if (!goOn.await(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)) {
      return;
    }
    for (; keepWriting(n); n++) {
      write(user, browser, 1, n);
      Thread.sleep(ThreadLocalRandom.current().nextInt(20, 60));
    }
  }

  private void write(int user, Browser browser, int generation, int n) {
    String key = "k" + (n % SessionWriters.KEYS);
    String value = "u" + user + "-g" + generation + "-" + n;
    long start = System.currentTimeMillis();
    String sentWith = browser.sessionId();
    Answer answer = browser.get(PAGE + "?action=set&name=" + key + "&value=" + value + "&seq=" + n);
    AppResponse app = answer.app();
    history.add(new Operation(Operation.Kind.WRITE, user, 0, generation, sentWith, key, value, n,
        app.kind() == AppResponse.Kind.OK ? app.previousSeq() : -1, app.node(), answer.writeOutcome(), false,
        answer.status(), answer.cause(), start, System.currentTimeMillis()));
  }

  /** One logout; whatever its outcome, the user's later writes belong to a new generation. */
  private void logOut(int user, Browser browser) {
    String ended = browser.sessionId();
    long start = System.currentTimeMillis();
    Answer answer = browser.get(PAGE + "?action=invalidate");
    long end = System.currentTimeMillis();
    firstAnswer.accumulateAndGet(end, Math::min);
    lastAnswer.accumulateAndGet(end, Math::max);
    Outcome outcome = answer.writeOutcome();
    history.add(new Operation(Operation.Kind.INVALIDATE, user, 0, 0, ended, "", "", -1, -1, answer.app().node(), outcome,
        false, answer.status(), answer.cause(), start, end));
    if (outcome == Outcome.OK && ended != null) {
      loggedOut.put(user, ended);
    }
  }
}
