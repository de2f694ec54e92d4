package io.tandem.spring;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.tandem.tomcat.ReplicationMXBean;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.management.InstanceNotFoundException;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.MBeanServerDelegate;
import javax.management.MBeanServerNotification;
import javax.management.MalformedObjectNameException;
import javax.management.Notification;
import javax.management.NotificationListener;
import javax.management.ObjectName;
import javax.management.relation.MBeanServerNotificationFilter;

/**
 * Tandem's JMX figures ({@link ReplicationMXBean}) as Micrometer meters: every numeric attribute of every {@code
 * io.tandem:type=Replication,node=...,context=...} MBean in the platform MBean server, named {@code tandem.} and the
 * attribute in dotted lower case ({@code ResponsesAborted} is {@code tandem.responses.aborted}; a trailing {@code
 * Millis} or {@code Micros} becomes the base unit instead), tagged {@code node} and {@code context}. Counts since the
 * context started are {@link FunctionCounter}s, the state now is a {@link Gauge}. The string attributes ({@code Buddy},
 * {@code Members}, {@code RefusalsByCause}, ...) stay JMX only.
 *
 * <p>The meters read the MBean server by {@link ObjectName} each time they are read, so they are live and hold no
 * reference to the manager, its context or its engine: a stopped context is never kept alive. Managers that start
 * after binding (Spring Boot binds once its singletons exist, and a context may be restarted) are picked up when their
 * MBean is registered, and their meters are removed when it is unregistered, as Micrometer's own {@code TomcatMetrics}
 * does with Tomcat's MBeans.
 */
public final class TandemMetrics implements MeterBinder, AutoCloseable {
  static final String PATTERN = "io.tandem:type=Replication,*";

  /** One figure of {@link ReplicationMXBean}: the JMX attribute, whether it counts, its base unit, its meaning. */
  record Figure(String attribute, boolean counter, String baseUnit, String description) {
    /** {@code ResponsesAborted} to {@code tandem.responses.aborted}; {@code LastReprotectionMillis} to {@code tandem.last.reprotection}. */
    String meterName() {
      String words = attribute.replaceFirst("(Millis|Micros)$", "")
          .replaceAll("([a-z0-9])([A-Z])", "$1.$2")
          .replaceAll("([a-z])([0-9])", "$1.$2");
      return "tandem." + words.toLowerCase(Locale.ROOT);
    }
  }

  private static Figure count(String attribute, String description) {
    return new Figure(attribute, true, null, description);
  }

  private static Figure count(String attribute, String baseUnit, String description) {
    return new Figure(attribute, true, baseUnit, description);
  }

  private static Figure gauge(String attribute, String baseUnit, String description) {
    return new Figure(attribute, false, baseUnit, description);
  }

  /** Every numeric getter of {@link ReplicationMXBean} (a test checks none is missing), descriptions from its javadoc. */
  static final List<Figure> FIGURES = List.of(
      gauge("OwnedSessions", BaseUnits.SESSIONS, "Sessions owned by this node"),
      gauge("BackupSessions", BaseUnits.SESSIONS, "Backups this node holds for its peers, as their buddy"),
      gauge("BackupBytes", BaseUnits.BYTES, "Bytes of the backups this node holds for its peers"),
      gauge("MaxBackupBytes", BaseUnits.BYTES,
          "The bound on BackupBytes (maxBackupBytes): past it this node refuses new copies as a buddy"),
      count("BackupStoreRefusals",
          "Copies and updates this node refused as a buddy because BackupBytes was at MaxBackupBytes"),
      count("BackupRefusalsFull",
          "Updates and copies of this node's sessions that its buddy refused because its backup store was full"),
      gauge("SessionsWithoutBackup", BaseUnits.SESSIONS,
          "Owned sessions of which the current buddy holds no copy right now; should be 0"),
      gauge("LastReprotectionMillis", "milliseconds",
          "How long the last membership change took to get every session protected again (-1: none yet)"),
      count("FullSessionsSent", BaseUnits.SESSIONS, "Whole sessions this node sent to its buddy"),
      count("DeltasSent", "Session updates (changed attributes only) this node sent to its buddy"),
      count("BytesReplicated", BaseUnits.BYTES, "Attribute bytes replicated by this node's flushes"),
      count("AckTimeouts",
          "SYNC waits given up on a buddy that did not acknowledge within ackTimeout + settleTimeout; ASYNC updates re-sent"),
      count("SlowAcks", "SYNC acknowledgements that came after ackTimeout from a buddy still connected"),
      count("SendFailures", "Replication sends that failed (each retried)"),
      count("SessionsPromoted", BaseUnits.SESSIONS, "Backups this node promoted to owned sessions on failover"),
      count("SessionsMigratedIn", BaseUnits.SESSIONS, "Sessions whose ownership moved to this node"),
      count("SessionsMigratedOut", BaseUnits.SESSIONS, "Sessions whose ownership moved away from this node"),
      count("SessionsHandedOff", BaseUnits.SESSIONS, "Sessions this node handed off to another owner"),
      gauge("HandoversUndecided", BaseUnits.SESSIONS,
          "Sessions handed to a member that asked and that has not yet shown it holds them (copies kept meanwhile)"),
      count("SessionsTakenBack", BaseUnits.SESSIONS,
          "Sessions handed to a member that never installed them (lost reply, died, left), owned here again"),
      count("SessionsFenced", BaseUnits.SESSIONS, "Sessions this node was fenced from because another node took them over"),
      count("PausesDetected",
          "Times this JVM did not run for longer than the pause threshold and put itself in quarantine"),
      count("MisjudgedViews",
          "Views of this node alone that dropped a member still sending it replication traffic"),
      count("RequestsSent", "requests", "Replication requests this node sent to its peers"),
      count("RequestsServed", "requests", "Replication requests this node served for its peers, as their buddy"),
      count("FramesWritten", "frames", "Frames this node's transport wrote: requests, acknowledgements, handshakes"),
      count("SocketWrites", "writes", "Socket writes those frames took"),
      count("CallerWrites", "writes", "Socket writes a waiting request thread made itself on an idle connection"),
      count("AcksReceived", "Acknowledgements received, each standing for one or more of RequestsSent"),
      count("RefusedPeers",
          "Peers that spoke the handshake and were refused: wrong secret, another cluster or protocol version"),
      count("RefusedNotDeployed", "Requests for an application this node does not run, refused (the node's figure)"),
      count("RefusedWithoutApplication", "Requests that named no application, refused (the node's figure)"),
      gauge("UnauthenticatedConnections", BaseUnits.CONNECTIONS, "Accepted connections now in their handshake"),
      count("UnsetMutationsDetected", "Attributes changed without setAttribute found by verifyMutations"),
      count("AttributesNotReplicable", "Attribute values (and principals) that could not be serialized"),
      count("AttributesUnreadable",
          "Attribute values of sessions taken over that this node could not decode, each dropped alone"),
      count("LoginsUnreadable",
          "Sessions taken over whose principal or a login note this node could not decode"),
      count("SessionsTooLarge", BaseUnits.SESSIONS,
          "Session copies that would have been larger than maxSessionSize: attributes were left out"),
      count("AsyncOverflows", "ASYNC updates that found the queue full"),
      count("UnconfirmedWrites", "SYNC flushes no buddy acknowledged within ackTimeout plus settleTimeout"),
      count("Responses503NotAdmitted", "responses",
          "503 before running: the session is not trusted here after a pause"),
      count("Responses503TakeoverUnavailable", "responses",
          "503 before running: the session exists but could not be taken over now"),
      count("Responses503Fenced", "responses",
          "503: another node took the session over while the request ran"),
      count("Responses503Unconfirmed", "responses",
          "503: SYNC, no buddy acknowledged the request's changes in time"),
      count("Responses503InvalidationUnconfirmed", "responses",
          "503: the buddy did not acknowledge the request's invalidation or id change in time"),
      count("Responses500NotReplicable", "responses", "500: SYNC, a value the request stored cannot be replicated"),
      count("ResponsesAlreadyCommitted", "responses",
          "A 503 or 500 case found after an asynchronous response ended without passing through Tandem"),
      count("ResponsesAnsweredAtCommit", "responses",
          "A 503 or 500 case found as the response committed, answered 500 or 503"),
      count("ResponsesAborted", "responses",
          "A 503 or 500 case found after the response committed: aborted"),
      gauge("ReplicationLatencyP50Micros", "microseconds", "Replication step at the end of a request, 50th percentile"),
      gauge("ReplicationLatencyP90Micros", "microseconds", "Replication step at the end of a request, 90th percentile"),
      gauge("ReplicationLatencyP99Micros", "microseconds", "Replication step at the end of a request, 99th percentile"),
      gauge("ReplicationLatencyMaxMicros", "microseconds", "Replication step at the end of a request, maximum"));

  private final MBeanServer server;
  private final ObjectName pattern;
  private final List<MeterRegistry> registries = new CopyOnWriteArrayList<>();
  /** What the meters read, held here because a FunctionCounter holds its object weakly; by MBean. */
  private final Map<ObjectName, List<Attribute>> attributes = new ConcurrentHashMap<>();
  private final NotificationListener listener = this::registrationChanged;
  private volatile boolean listening;

  public TandemMetrics() {
    this(ManagementFactory.getPlatformMBeanServer());
  }

  TandemMetrics(MBeanServer server) {
    this.server = server;
    try {
      this.pattern = new ObjectName(PATTERN);
    } catch (MalformedObjectNameException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    registries.add(registry);
    listen();
    // After the listener is in place, so that no MBean falls between the two; registering a meter twice is harmless.
    for (ObjectName name : server.queryNames(pattern, null)) {
      bind(registry, name);
    }
  }

  private synchronized void listen() {
    if (listening) {
      return;
    }
    MBeanServerNotificationFilter filter = new MBeanServerNotificationFilter();
    filter.enableAllObjectNames();
    try {
      server.addNotificationListener(MBeanServerDelegate.DELEGATE_NAME, listener, filter, null);
      listening = true;
    } catch (InstanceNotFoundException e) {
      throw new IllegalStateException(e);
    }
  }

  private void registrationChanged(Notification notification, Object handback) {
    if (!(notification instanceof MBeanServerNotification event) || !pattern.apply(event.getMBeanName())) {
      return;
    }
    if (MBeanServerNotification.UNREGISTRATION_NOTIFICATION.equals(event.getType())) {
      attributes.remove(event.getMBeanName());
    }
    for (MeterRegistry registry : registries) {
      if (MBeanServerNotification.REGISTRATION_NOTIFICATION.equals(event.getType())) {
        bind(registry, event.getMBeanName());
      } else if (MBeanServerNotification.UNREGISTRATION_NOTIFICATION.equals(event.getType())) {
        Tags tags = tags(event.getMBeanName());
        List<Meter> meters = registry.getMeters().stream()
            .filter(meter -> meter.getId().getName().startsWith("tandem.")
                && Tags.of(meter.getId().getTagsAsIterable()).equals(tags))
            .toList();
        meters.forEach(registry::remove);
      }
    }
  }

  private void bind(MeterRegistry registry, ObjectName name) {
    Tags tags = tags(name);
    List<Attribute> read = attributes.computeIfAbsent(name,
        key -> FIGURES.stream().map(figure -> new Attribute(server, key, figure.attribute())).toList());
    for (int i = 0; i < FIGURES.size(); i++) {
      Figure figure = FIGURES.get(i);
      Attribute attribute = read.get(i);
      if (figure.counter()) {
        FunctionCounter.builder(figure.meterName(), attribute, Attribute::read)
            .tags(tags).baseUnit(figure.baseUnit()).description(figure.description()).register(registry);
      } else {
        Gauge.builder(figure.meterName(), attribute, Attribute::read).strongReference(true)
            .tags(tags).baseUnit(figure.baseUnit()).description(figure.description()).register(registry);
      }
    }
  }

  static Tags tags(ObjectName name) {
    return Tags.of("node", unquoted(name.getKeyProperty("node")), "context", unquoted(name.getKeyProperty("context")));
  }

  private static String unquoted(String value) {
    if (value == null) {
      return "";
    }
    return value.startsWith("\"") ? ObjectName.unquote(value) : value;
  }

  /** Stops following MBean registrations; the counters already registered may read NaN from then on. */
  @Override
  public void close() {
    synchronized (this) {
      if (!listening) {
        return;
      }
      listening = false;
    }
    try {
      server.removeNotificationListener(MBeanServerDelegate.DELEGATE_NAME, listener);
    } catch (JMException e) {
      // already gone
    }
    registries.clear();
    attributes.clear();
  }

  /**
   * One attribute of one MBean, read each time: the ObjectName only, never the manager. NaN once the MBean is gone
   * (between its unregistration and the removal of its meters).
   */
  private record Attribute(MBeanServer server, ObjectName name, String attribute) {
    double read() {
      try {
        return ((Number) server.getAttribute(name, attribute)).doubleValue();
      } catch (JMException | RuntimeException e) {
        return Double.NaN;
      }
    }
  }
}
