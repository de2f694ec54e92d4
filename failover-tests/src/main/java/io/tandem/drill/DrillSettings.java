package io.tandem.drill;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Set;

/**
 * How one drill runs; validated when built, immutable after.
 *
 * @param catalinaHome the unpacked Tomcat distribution every node runs
 * @param dropin Tandem's drop-in jar, copied into each node's {@code lib/}
 * @param work where each node gets its {@code CATALINA_BASE}
 * @param scope the replication scope, as the Manager attribute spells it
 * @param mode SYNC or ASYNC
 * @param users concurrent users (for the parallel drill: sessions, each with {@link #PARALLEL_TABS} tabs)
 * @param minWrites writes each user makes at least; users keep writing past it until the faults are over
 * @param maxWrites writes each user makes at most: the drill's load is bounded by it
 * @param balancer "sticky" (the drill's own sticky client), "haproxy" (a real HAProxy process) or "httpd" (a real
 *     Apache httpd)
 */
record DrillSettings(
    Path catalinaHome, Path dropin, Path work, String scope, String mode, int users, int minWrites, int maxWrites,
    String balancer, PrintStream progress) {
  static final int PARALLEL_TABS = 4;
  private static final Set<String> SCOPES = Set.of("SESSION", "MODIFIED_SESSION", "MODIFIED_ATTRIBUTE");
  private static final Set<String> MODES = Set.of("SYNC", "ASYNC");
  private static final Set<String> BALANCERS = Set.of("sticky", "haproxy", "httpd");

  DrillSettings {
    Objects.requireNonNull(progress, "progress");
    if (!Files.isRegularFile(catalinaHome.resolve("bin/catalina.sh"))) {
      throw new IllegalArgumentException(catalinaHome + " is not a Tomcat distribution (no bin/catalina.sh)");
    }
    if (!Files.isRegularFile(dropin)) {
      throw new IllegalArgumentException("the drop-in jar " + dropin + " is missing; build it with ./mvnw install -pl tomcat-valve -am");
    }
    if (!SCOPES.contains(scope)) {
      throw new IllegalArgumentException("scope '" + scope + "' is not one of " + SCOPES);
    }
    if (!MODES.contains(mode)) {
      throw new IllegalArgumentException("mode '" + mode + "' is not one of " + MODES);
    }
    if (!BALANCERS.contains(balancer)) {
      throw new IllegalArgumentException("balancer '" + balancer + "' is not one of " + BALANCERS);
    }
    if (users < 1 || users > TomcatProcess.LOGIN_USERS) {
      throw new IllegalArgumentException("users must be 1.." + TomcatProcess.LOGIN_USERS + ", not " + users);
    }
    if (minWrites < 6 || maxWrites < minWrites || maxWrites > 5_000) {
      throw new IllegalArgumentException("writes per user must satisfy 6 <= min <= max <= 5000, not " + minWrites + ".." + maxWrites);
    }
  }

  boolean sync() {
    return mode.equals("SYNC");
  }

  DrillSettings with(String newScope, String newMode, String newBalancer) {
    return new DrillSettings(catalinaHome, dropin, work, newScope, newMode, users, minWrites, maxWrites, newBalancer, progress);
  }
}
