package io.tandem.benchmarks.capacity;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One way of running the two nodes that the benchmark compares: no replication, Tandem in one scope and mode, or one
 * of Tomcat's own cluster managers. Every setup runs the same Tomcat distribution, application and CPU cap; only the
 * session manager (and, for Tomcat's managers, the {@code <Cluster>} they need) differs.
 *
 * @param name stable identifier, used on the command line and in the results
 * @param kind which family of manager
 * @param scope Tandem's replication scope, or null for the other kinds
 * @param mode Tandem's replication mode (SYNC or ASYNC), or null for the other kinds
 */
public record Setup(String name, Kind kind, String scope, String mode) {

  /** The families of session manager the benchmark knows how to install. */
  public enum Kind {
    /** {@code StandardManager}: sessions live on one node only. The control every ratio is taken against. */
    NO_REPLICATION,
    /** Tandem's {@code TandemManager} with one buddy per session. */
    TANDEM,
    /** Tomcat's {@code BackupManager}: one backup per session through Tribes. */
    TOMCAT_BACKUP,
    /**
     * Tomcat's {@code DeltaManager}: every session copied to every node through Tribes, with the cluster's default
     * asynchronous sends (a request does not wait for the copy).
     */
    TOMCAT_DELTA,
    /**
     * Tomcat's {@code DeltaManager} with synchronous sends: the cluster's {@code channelSendOptions} 6, so a request's
     * copy is acknowledged by the other node once received and processed before the request ends. The SYNC peer of
     * Tandem's SYNC setups, as the asynchronous default is the peer of its ASYNC ones.
     */
    TOMCAT_DELTA_SYNC,
    /**
     * Not a manager to compare: the control's {@code StandardManager} plus only the wait a SYNC request's thread makes
     * for its acknowledgement, released at once by another thread ({@code io.tandem.benchmarks.floor}). A floor under
     * SYNC replication's cost on the machine at hand; never part of the default run.
     */
    ACK_WAIT_FLOOR
  }

  public static final List<String> SCOPES = List.of("SESSION", "MODIFIED_SESSION", "MODIFIED_ATTRIBUTE");
  public static final List<String> MODES = List.of("SYNC", "ASYNC");
  public static final Setup CONTROL = new Setup("no-replication", Kind.NO_REPLICATION, null, null);
  public static final Setup BACKUP_MANAGER = new Setup("tomcat-backup", Kind.TOMCAT_BACKUP, null, null);
  public static final Setup DELTA_MANAGER = new Setup("tomcat-delta", Kind.TOMCAT_DELTA, null, null);
  public static final Setup DELTA_MANAGER_SYNC = new Setup("tomcat-delta-sync", Kind.TOMCAT_DELTA_SYNC, null, null);
  public static final Setup ACK_WAIT_FLOOR = new Setup("ack-wait-floor", Kind.ACK_WAIT_FLOOR, null, null);

  public Setup {
    boolean tandem = kind == Kind.TANDEM;
    if (tandem != (scope != null) || tandem != (mode != null)) {
      throw new IllegalArgumentException("setup " + name + ": scope and mode are given for Tandem setups only");
    }
    if (tandem && (!SCOPES.contains(scope) || !MODES.contains(mode))) {
      throw new IllegalArgumentException("setup " + name + ": scope " + scope + " must be one of " + SCOPES
          + " and mode " + mode + " one of " + MODES);
    }
  }

  public static Setup tandem(String scope, String mode) {
    return new Setup("tandem-" + scope.toLowerCase(Locale.ROOT).replace('_', '-') + "-" + mode.toLowerCase(Locale.ROOT),
        Kind.TANDEM, scope, mode);
  }

  /** Every setup of the full run, the control first. */
  public static List<Setup> all() {
    List<Setup> all = new ArrayList<>();
    all.add(CONTROL);
    for (String scope : SCOPES) {
      for (String mode : MODES) {
        all.add(tandem(scope, mode));
      }
    }
    all.add(BACKUP_MANAGER);
    all.add(DELTA_MANAGER);
    all.add(DELTA_MANAGER_SYNC);
    return List.copyOf(all);
  }

  /** Every setup {@code --setups} can name: those of the full run, then the floor, which is run only when named. */
  public static List<Setup> known() {
    List<Setup> known = new ArrayList<>(all());
    known.add(ACK_WAIT_FLOOR);
    return List.copyOf(known);
  }

  /** The setup of that name, or an error listing the names there are. */
  public static Setup named(String name) {
    for (Setup setup : known()) {
      if (setup.name.equals(name)) {
        return setup;
      }
    }
    throw new IllegalArgumentException("unknown setup '" + name + "'; the setups are "
        + known().stream().map(Setup::name).toList());
  }

  public boolean isControl() {
    return kind == Kind.NO_REPLICATION;
  }

  /** Whether the nodes run one of Tomcat's own cluster managers, which report failed replication in their log. */
  public boolean tomcatCluster() {
    return kind == Kind.TOMCAT_BACKUP || kind == Kind.TOMCAT_DELTA || kind == Kind.TOMCAT_DELTA_SYNC;
  }

  /** Whether the nodes replicate at all, so failed replication can be counted. */
  public boolean replicates() {
    return kind != Kind.NO_REPLICATION && kind != Kind.ACK_WAIT_FLOOR;
  }

  /** A short human label for tables and charts. */
  public String label() {
    return switch (kind) {
      case NO_REPLICATION -> "no replication";
      case TANDEM -> "Tandem " + scope + " " + mode;
      case TOMCAT_BACKUP -> "Tomcat BackupManager";
      case TOMCAT_DELTA -> "Tomcat DeltaManager, asynchronous (default)";
      case TOMCAT_DELTA_SYNC -> "Tomcat DeltaManager, synchronous acks";
      case ACK_WAIT_FLOOR -> "floor: the SYNC wait alone";
    };
  }
}
