package io.tandem.drill;

import io.tandem.drill.realm.DrillPrincipal;
import io.tandem.drill.values.DrillValues;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

/**
 * The poison-values workload: sequential users, all starting on the first node, each logged in through the FORM page
 * with the drill realm's custom principal, storing values that Tandem must replicate or refuse but never answer 200
 * and lose. User u's n-th write stores the value of kind {@code DrillValues.KINDS[(u + n) % 9]} with id {@code
 * u<u>-<n>} under key {@code p<n % 4>} (so every key gets every kind, allowed ones followed by refused ones, and users
 * are at different kinds when the fault comes) and {@code seq = n}. A user is warm after twice through the kinds.
 * From the moment the drill says {@link #faultComing()}, writes go to keys {@code q<n % 4>} instead: the {@code p}
 * keys keep what the owner acknowledged before it died, for the final read to find on the survivor (a later write
 * of the same key would hide a lost one; the {@code seq} check cannot see it, since {@code seq} always replicates).
 * The history records each write as the value's description ({@link DrillValues#describe}), which is what the final
 * listing must show. Answers: "ok" (200), "refused" (400: the write did not happen), 500 (not replicated: unknown,
 * the attribute may be absent after a failover), 503 (unknown).
 *
 * <p>Implementation notes: each user thread owns its {@link Browser}; {@code history}, {@code principals} and
 * {@code answers} are concurrent.
 */
final class PoisonWriters extends UserThreads {
  static final String PAGE = "/app/secure/poison.jsp";
  /** Keys the writes cycle over: coprime with the number of kinds, so every key sees every kind. */
  static final int KEYS = 4;
  private static final int WARM_WRITES = 2 * DrillValues.KINDS.size();
  private final LoadBalancer balancer;
  private final int users;
  private volatile boolean faulted;
  private final Map<Integer, String> principals = new ConcurrentHashMap<>();
  /** kind -> answer ("200", "400", "500", "503", "no answer", ...) -> count. */
  private final Map<String, Map<String, AtomicInteger>> answers = new ConcurrentHashMap<>();

  PoisonWriters(LoadBalancer balancer, int users, int minWrites, int maxWrites) {
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
      Browser browser = new Browser(balancer, 0);
      browsers.put(u, browser);
      int user = u;
      startUser("drill-poison-" + u, warmedUp -> run(user, browser, warmedUp));
    }
  }

  /** The principal {@code poison.jsp} shows for {@code user<user>} logged in through the drill realm. */
  static String principalOf(int user) {
    String name = "user" + user;
    return DrillValues.describePrincipal(new DrillPrincipal(name, DrillPrincipal.badgeOf(name), "drill"));
  }

  /** Writes from now on go to the {@code q} keys. */
  void faultComing() {
    faulted = true;
  }

  @Override
  public Map<Integer, String> principals() {
    return Map.copyOf(principals);
  }

  @Override
  public List<String> notes() {
    Map<String, String> byKind = new TreeMap<>();
    answers.forEach((kind, counts) -> byKind.put(kind, new TreeMap<>(counts).entrySet().stream()
        .map(e -> e.getKey() + " x" + e.getValue().get()).collect(Collectors.joining(", "))));
    return DrillValues.KINDS.stream().filter(byKind::containsKey).map(k -> "answers to '" + k + "' writes: " + byKind.get(k)).toList();
  }

  private void run(int user, Browser browser, Runnable warmedUp) throws InterruptedException {
    if (!SessionWriters.login(browser, PAGE, user)) {
      return;
    }
    principals.put(user, principalOf(user));
    for (int n = 0; keepWriting(n); n++) {
      write(user, browser, n);
      if (n + 1 == WARM_WRITES) {
        warmedUp.run();
      }
      Thread.sleep(ThreadLocalRandom.current().nextInt(20, 60)); // think time between a user's pages
    }
  }

  private void write(int user, Browser browser, int n) {
    String kind = DrillValues.KINDS.get((user + n) % DrillValues.KINDS.size());
    String key = (faulted ? "q" : "p") + (n % KEYS);
    String id = "u" + user + "-" + n;
    String value = DrillValues.describe(DrillValues.make(kind, id));
    long start = System.currentTimeMillis();
    String sentWith = browser.sessionId();
    Answer answer = browser.get(PAGE + "?action=set&name=" + key + "&kind=" + kind + "&id=" + id + "&seq=" + n);
    AppResponse app = answer.app();
    history.add(new Operation(Operation.Kind.WRITE, user, 0, 0, sentWith, key, value, n,
        app.kind() == AppResponse.Kind.OK ? app.previousSeq() : -1, app.node(), answer.writeOutcome(),
        app.kind() == AppResponse.Kind.LOGIN_PAGE, answer.status(), answer.cause(), start, System.currentTimeMillis()));
    String said = answer.delivery() != Answer.Delivery.ANSWERED ? "no answer"
        : app.kind() == AppResponse.Kind.LOGIN_PAGE ? "login page" : Integer.toString(answer.status());
    answers.computeIfAbsent(kind, k -> new ConcurrentHashMap<>()).computeIfAbsent(said, s -> new AtomicInteger()).incrementAndGet();
    if (app.kind() == AppResponse.Kind.LOGIN_PAGE) {
      SessionWriters.login(browser, PAGE, user); // logged out by the failover: the checker counts it; log in again to go on
    }
  }
}
