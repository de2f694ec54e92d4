package io.tandem.transport.hazelcast;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.instance.impl.HazelcastInstanceImpl;
import com.hazelcast.instance.impl.HazelcastInstanceProxy;
import com.hazelcast.internal.cluster.impl.MemberMap;
import java.lang.System.Logger.Level;
import java.util.List;

/**
 * Reads the member list together with its version, the one place that touches Hazelcast internals.
 *
 * <p>Why internals: Hazelcast's public API has the ordered member list but not its version, and the version is what
 * lets every node give the same view the same id: the master numbers each member list and every member applies the
 * list with that number. {@code MemberMap} is an immutable snapshot, so list and version are read atomically.
 * Checked against Hazelcast 5.7.0 ({@code HazelcastInstanceProxy.getOriginal().node.getClusterService()
 * .getMembershipManager().getMemberMap()}). If a later Hazelcast moves these, this falls back to the public member
 * list with {@link #UNKNOWN_VERSION}, and the caller numbers views itself (then nodes may disagree on view ids).
 *
 * <p>Implementation notes: stateless apart from a once-only warning flag; safe from any thread.
 */
final class MemberListReader {
  private static final System.Logger LOG = System.getLogger(MemberListReader.class.getName());

  static final long UNKNOWN_VERSION = -1;

  private static volatile boolean internalsUnavailable;

  /** An ordered member list (oldest first, the same on every member) and its cluster-wide version. */
  record Snapshot(long version, List<Member> members) {
    Snapshot {
      members = List.copyOf(members);
    }
  }

  private MemberListReader() {}

  static Snapshot read(HazelcastInstance instance) {
    if (!internalsUnavailable) {
      try {
        HazelcastInstanceImpl impl =
            instance instanceof HazelcastInstanceProxy proxy
                ? proxy.getOriginal()
                : (HazelcastInstanceImpl) instance;
        MemberMap map = impl.node.getClusterService().getMembershipManager().getMemberMap();
        return new Snapshot(map.getVersion(), List.copyOf(map.getMembers()));
      } catch (LinkageError | ClassCastException e) {
        internalsUnavailable = true;
        LOG.log(
            Level.WARNING,
            "Hazelcast member list version not readable with this Hazelcast version; numbering views locally, so"
                + " nodes may disagree on view ids",
            e);
      }
    }
    return new Snapshot(UNKNOWN_VERSION, List.copyOf(instance.getCluster().getMembers()));
  }
}
