package io.tandem.drill;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The app-redeploy drill's users: sequential, one thread each, spread over the nodes, logged in through the FORM page
 * before they write to {@link #PAGE}. User u's n-th write puts {@code u<u>-g0-<n>} under one of {@link
 * SessionWriters#KEYS} keys and {@code seq = n}; until the drill calls {@link #profilesWritten()} (before the first
 * redeploy, while every node runs release 1) it also stores the application's {@code Profile} of that write. Each
 * answer says which release served it and how that release reads the session's profile: recorded as an {@link
 * ProfileChecker.Echo} for {@link ProfileChecker}.
 *
 * <p>Implementation notes: each user thread owns its {@link Browser}; {@code history}, {@code echoes} and {@code
 * principals} are concurrent; {@code writeProfiles} is set by the drill thread.
 */
final class RedeployWriters extends UserThreads {
  static final String PAGE = "/app/secure/profile.jsp";
  private static final int WARM_WRITES = 5;
  private final LoadBalancer balancer;
  private final int users;
  private volatile boolean writeProfiles = true;
  private final ConcurrentLinkedQueue<ProfileChecker.Echo> echoes = new ConcurrentLinkedQueue<>();
  private final Map<Integer, String> principals = new ConcurrentHashMap<>();

  RedeployWriters(LoadBalancer balancer, int users, int minWrites, int maxWrites) {
    super(users, minWrites, maxWrites);
    this.balancer = balancer;
    this.users = users;
  }

  @Override
  public String page() {
    return PAGE;
  }

  @Override
  public void start() {
    for (int u = 0; u < users; u++) {
      Browser browser = new Browser(balancer, u);
      browsers.put(u, browser);
      int user = u;
      startUser("drill-redeploy-" + u, warmedUp -> run(user, browser, warmedUp));
    }
  }

  /** Writes from now on leave the profile as it is (each still reads it). */
  void profilesWritten() {
    writeProfiles = false;
  }

  /** Per account, the principal the page showed on its first acknowledged write. */
  @Override
  public Map<Integer, String> principals() {
    return Map.copyOf(principals);
  }

  /** What every write's answer said of the release and the profile, in no particular order. */
  List<ProfileChecker.Echo> echoes() {
    return new ArrayList<>(echoes);
  }

  private void run(int user, Browser browser, Runnable warmedUp) throws InterruptedException {
    if (!SessionWriters.login(browser, PAGE, user)) {
      return;
    }
    for (int n = 0; keepWriting(n); n++) {
      write(user, browser, n);
      if (n + 1 == WARM_WRITES) {
        warmedUp.run();
      }
      Thread.sleep(ThreadLocalRandom.current().nextInt(20, 60)); // think time between a user's pages
    }
  }

  private void write(int user, Browser browser, int n) {
    boolean profile = writeProfiles;
    String key = "k" + (n % SessionWriters.KEYS);
    String value = "u" + user + "-g0-" + n;
    long start = System.currentTimeMillis();
    String sentWith = browser.sessionId();
    Answer answer = browser.get(PAGE + "?action=set&name=" + key + "&value=" + value + "&seq=" + n + (profile ? "&profile=1" : ""));
    AppResponse app = answer.app();
    history.add(new Operation(Operation.Kind.WRITE, user, 0, 0, sentWith, key, value, n,
        app.kind() == AppResponse.Kind.OK ? app.previousSeq() : -1, app.node(), answer.writeOutcome(),
        app.kind() == AppResponse.Kind.LOGIN_PAGE, answer.status(), answer.cause(), start, System.currentTimeMillis()));
    boolean ok = app.kind() == AppResponse.Kind.OK;
    echoes.add(new ProfileChecker.Echo(user, n, profile, ok ? release(answer.body()) : 0, ok ? token(answer.body(), "profile") : "",
        ok ? app.principal() : ""));
    if (ok) {
      principals.putIfAbsent(user, app.principal());
    }
    if (app.kind() == AppResponse.Kind.LOGIN_PAGE) {
      SessionWriters.login(browser, PAGE, user); // logged out by the redeploy: the checker counts it; log in again to go on
    }
  }

  /** The release {@code profile.jsp} says served the answer ({@code release=<n>}), 0 if it does not say. */
  static int release(String body) {
    String release = token(body, "release");
    return release.matches("[0-9]+") ? Integer.parseInt(release) : 0;
  }

  /** The value of the answer's {@code <name>=} token, "" if it has none. */
  static String token(String body, String name) {
    for (String token : body.trim().split("\\s+")) {
      if (token.startsWith(name + "=")) {
        return token.substring(name.length() + 1);
      }
    }
    return "";
  }
}
