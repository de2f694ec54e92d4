package io.tandem.transport.hazelcast;

import io.tandem.core.spi.NodeId;
import java.util.Arrays;
import java.util.List;

/**
 * A Tandem node in a JVM of its own, for tests that must freeze a member (SIGSTOP), which cannot be done to a
 * member inside the test JVM. Arguments: cluster name, node id, port, then the join ports.
 */
final class MemberProcess {
  private MemberProcess() {}

  public static void main(String[] args) throws Exception {
    List<Integer> joinPorts = Arrays.stream(args).skip(3).map(Integer::valueOf).toList();
    HazelcastMembershipConfig config =
        HazelcastMembershipConfig.forLoopback(
            args[0], NodeId.of(args[1]), "test://" + args[1], Integer.parseInt(args[2]), joinPorts);
    HazelcastMembership membership = new HazelcastMembership(config);
    membership.start();
    System.out.println("started " + membership.currentView());
    Thread.sleep(Long.MAX_VALUE);
  }
}
