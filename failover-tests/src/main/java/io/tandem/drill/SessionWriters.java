package io.tandem.drill;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.IntFunction;

/**
 * Sequential users, one thread each: user u's n-th write puts {@code u<u>-g<generation>-<n>} under one of
 * {@link #KEYS} keys and {@code seq = n} into
 * its session, one page at a time with think time between (none in a {@link Shape#storm() storm}). Every fourth user
 * invalidates its session halfway and goes on in a new one, so the checker can prove invalidated sessions never come
 * back. With {@code formLogin}, users log in through the FORM page first and write to a protected page. A drill can
 * pin a user's next write to one node with an old cookie, as a load balancer whose stickiness table lags would (the
 * hang drill's stale probe), and give some users a balancer of their own (the patient clients of {@code hang-patient}).
 *
 * <p>Implementation notes: each user thread owns its {@link Browser} and counters; {@code pins}, {@code history}
 * and {@code sessionIds} are concurrent; {@code stop} is set by the drill thread.
 */
final class SessionWriters extends UserThreads {
  private static final int WARM_WRITES = 5;
  /** Writes cycle over this many keys, so a long drill does not grow sessions without bound. */
  static final int KEYS = 32;
  private final IntFunction<LoadBalancer> balancers;
  private final int users;
  private final int minWrites;
  private final Shape shape;
  private final List<String> applications;
  private final Map<Integer, String> sessionIds = new ConcurrentHashMap<>();
  private final Map<Integer, Pin> pins = new ConcurrentHashMap<>();
  private final HttpExchange direct = new HttpExchange(Duration.ofSeconds(1), Duration.ofSeconds(4));

  /** A write to send to {@code node} with {@code sessionId} instead of through the balancer. */
  record Pin(TomcatProcess node, String sessionId) {}

  /**
   * How the users behave.
   *
   * @param formLogin users log in through the FORM page first and write to a protected page
   * @param sameHome every user's first request asks to land on the first node (so one node owns every session): the
   *     sticky client does so; HAProxy and httpd spread new sessions round-robin
   * @param storm no think time: each user sends its next write as soon as the last one was answered
   * @param bigPages each write is answered in a page of 20-200 KiB ({@code bigpage.jsp}): chunked or with a declared
   *     length, flushed halfway or not, storing the write before the page's first byte or after its last, and one
   *     write in four through an asynchronous servlet, each chosen at random
   * @param valueBytes each written value is padded with dots to this many characters (0: not padded), so that sessions
   *     take room fast (the full-buddy drill)
   */
  record Shape(boolean formLogin, boolean sameHome, boolean storm, boolean bigPages, int valueBytes) {
    Shape(boolean formLogin, boolean sameHome, boolean storm) {
      this(formLogin, sameHome, storm, false, 0);
    }
  }

  SessionWriters(LoadBalancer balancer, int users, int minWrites, int maxWrites, boolean formLogin, boolean sameHome) {
    this(user -> balancer, users, minWrites, maxWrites, new Shape(formLogin, sameHome, false));
  }

  /** @param balancers the balancer each user (by index) sends through */
  SessionWriters(IntFunction<LoadBalancer> balancers, int users, int minWrites, int maxWrites, Shape shape) {
    this(balancers, users, minWrites, maxWrites, shape, List.of("app"));
  }

  /**
   * @param applications the context paths (without the slash) the drill application runs under; user u writes to
   *     {@code applications.get(u % applications.size())}
   */
  SessionWriters(IntFunction<LoadBalancer> balancers, int users, int minWrites, int maxWrites, Shape shape,
      List<String> applications) {
    super(users, minWrites, maxWrites);
    this.balancers = balancers;
    this.users = users;
    this.minWrites = minWrites;
    this.shape = shape;
    this.applications = List.copyOf(applications);
  }

  @Override
  public String page() {
    return page(0);
  }

  @Override
  public String page(int user) {
    String application = "/" + applications.get(user % applications.size());
    return shape.formLogin() ? application + "/secure/session.jsp" : application + "/session.jsp";
  }

  @Override
  public List<String> pages() {
    return java.util.stream.IntStream.range(0, applications.size()).mapToObj(this::page).toList();
  }

  @Override
  public void start() {
    for (int u = 0; u < users; u++) {
      Browser browser = new Browser(balancers.apply(u), shape.sameHome() ? 0 : u);
      browsers.put(u, browser);
      int user = u;
      startUser("drill-user-" + u, warmedUp -> run(user, browser, warmedUp));
    }
  }

  /** Each user's current session id, as its browser holds it. */
  Map<Integer, String> sessionIds() {
    return Map.copyOf(sessionIds);
  }

  /** The next write of {@code user} goes to {@code pin.node()} with {@code pin.sessionId()}. */
  void pin(int user, Pin pin) {
    pins.put(user, pin);
  }

  /** Whether every pinned write was sent. */
  boolean pinsSent() {
    return pins.isEmpty();
  }

  private void run(int user, Browser browser, Runnable warmedUp) throws InterruptedException {
    if (shape.formLogin() && !login(browser, page(user), user)) {
      return;
    }
    int generation = 0;
    int invalidateAt = user % 4 == 3 && !shape.formLogin() ? minWrites / 2 : -1; // logging out is not what the FORM drill tests
    for (int n = 0; keepWriting(n); n++) {
      if (n == invalidateAt && invalidate(user, browser, generation)) {
        generation++;
      }
      write(user, browser, generation, n);
      if (n + 1 == WARM_WRITES) {
        warmedUp.run();
      }
      if (!shape.storm()) {
        Thread.sleep(ThreadLocalRandom.current().nextInt(20, 60)); // think time between a user's pages
      }
    }
  }

  private void write(int user, Browser browser, int generation, int n) {
    String key = "k" + (n % KEYS);
    String written = "u" + user + "-g" + generation + "-" + n;
    String value = written.length() >= shape.valueBytes() ? written
        : written + "-" + ".".repeat(shape.valueBytes() - written.length() - 1);
    String query = (shape.bigPages() ? bigPage() : page(user) + "?action=set") + "&name=" + key + "&value=" + value + "&seq=" + n;
    long start = System.currentTimeMillis();
    Pin pin = pins.remove(user);
    String sentWith = pin == null ? browser.sessionId() : pin.sessionId();
    Answer answer;
    if (pin == null) {
      answer = browser.get(query);
    } else {
      answer = direct.send(pin.node().url(""), query, null, pin.sessionId());
      if (answer.sessionId() != null) {
        browser.useSession(answer.sessionId());
      }
    }
    AppResponse app = answer.app();
    history.add(new Operation(Operation.Kind.WRITE, user, 0, generation, sentWith, key, value, n,
        app.kind() == AppResponse.Kind.OK ? app.previousSeq() : -1, app.node(), answer.writeOutcome(),
        app.kind() == AppResponse.Kind.LOGIN_PAGE, answer.status(), answer.cause(), start, System.currentTimeMillis()));
    if (browser.sessionId() != null) {
      sessionIds.put(user, browser.sessionId());
    }
    if (app.kind() == AppResponse.Kind.LOGIN_PAGE) {
      login(browser, page(user), user); // logged out by the failover: the checker counts it; log in again to go on
    }
  }

  /** A big page's address and shape, chosen at random (see {@link Shape#bigPages()}). */
  private static String bigPage() {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    return (random.nextInt(4) == 0 ? "/app/asyncpage" : "/app/bigpage.jsp")
        + "?bytes=" + random.nextInt(20 * 1024, 200 * 1024 + 1)
        + "&length=" + (random.nextBoolean() ? "declared" : "chunked")
        + "&flush=" + (random.nextInt(3) == 0 ? "mid" : "none")
        + "&set=" + (random.nextBoolean() ? "after" : "before");
  }

  /** Invalidates the session, retrying an unknown outcome: "ok" means the session is gone whatever came before. */
  private boolean invalidate(int user, Browser browser, int generation) throws InterruptedException {
    for (int attempt = 0; attempt < 5; attempt++) {
      String ended = browser.sessionId();
      long start = System.currentTimeMillis();
      Answer answer = browser.get(page(user) + "?action=invalidate");
      AppResponse app = answer.app();
      Outcome outcome = answer.writeOutcome();
      history.add(new Operation(Operation.Kind.INVALIDATE, user, 0, generation, ended, "", "", -1, -1, app.node(),
          outcome, app.kind() == AppResponse.Kind.LOGIN_PAGE, answer.status(), answer.cause(), start, System.currentTimeMillis()));
      if (outcome == Outcome.OK) {
        return true;
      }
      Thread.sleep(200);
    }
    return false;
  }

  /**
   * FORM login as {@code user<user>}: the protected {@code page} answers the login form; posting it answers a
   * redirect back to the page. False when five attempts did not land logged in.
   */
  static boolean login(Browser browser, String page, int user) {
    for (int attempt = 0; attempt < 5; attempt++) {
      Answer form = browser.get(page);
      if (form.app().kind() != AppResponse.Kind.LOGIN_PAGE) {
        continue;
      }
      Answer posted = browser.post("/app/j_security_check", Map.of("j_username", "user" + user, "j_password", TomcatProcess.PASSWORD));
      if (posted.status() == 303 || posted.status() == 302) {
        Answer landed = browser.get(page);
        if (landed.app().user().equals("user" + user)) {
          return true;
        }
      }
    }
    return false;
  }
}
