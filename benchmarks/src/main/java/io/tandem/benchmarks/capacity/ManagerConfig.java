package io.tandem.benchmarks.capacity;

/**
 * The configuration one node of a setup needs, as an operator writes it: the {@code <Manager>} of the application's
 * {@code context.xml} and, for Tomcat's own managers, the {@code <Cluster>} of {@code server.xml}.
 *
 * @param managerElement goes into the application's {@code META-INF/context.xml} (the {@code <Manager>}, and for the
 *     floor a {@code <Valve>} after it); empty for none
 * @param clusterElement goes inside the {@code <Engine>} of {@code server.xml}; empty for none
 * @param floorValve the context names the floor's valve, whose jar ({@link FloorJar}) the node's {@code lib/} needs
 */
record ManagerConfig(String managerElement, String clusterElement, boolean floorValve) {

  private static final String SHARED_SECRET = "bench-shared-secret-0123";
  // Every manager looks for expired sessions every background run (10 s) instead of every sixth (Tomcat's default),
  // the same for all, so abandoned sessions leave the heap within about a minute and ten seconds.
  private static final String EXPIRY = " processExpiresFrequency=\"1\"";
  // pathname="" keeps StandardManager from persisting sessions at shutdown: no node restarts here.
  // Tribes' Channel.SEND_OPTIONS_USE_ACK (2) | SEND_OPTIONS_SYNCHRONIZED_ACK (4): the sender waits for the receiver's
  // acknowledgement, sent once the message was received and processed. SimpleTcpCluster sends DeltaManager's messages
  // with its channelSendOptions, whose default is SEND_OPTIONS_ASYNCHRONOUS (8); the clustering docs' value for
  // synchronous replication is 6.
  static final int SYNCHRONOUS_SEND_OPTIONS = 6;
  private static final String DELTA_MANAGER = "<Manager className=\"org.apache.catalina.ha.session.DeltaManager\""
      + " expireSessionsOnShutdown=\"false\" notifyListenersOnReplication=\"true\"" + EXPIRY + "/>";
  private static final String STANDARD_MANAGER =
      "<Manager className=\"org.apache.catalina.session.StandardManager\" pathname=\"\"" + EXPIRY + "/>";

  /**
   * The configuration of node {@code index} (0 or 1) of a pair whose nodes listen for replication on
   * {@code replicationPorts} and, for Tandem, for membership on {@code membershipPorts}.
   */
  static ManagerConfig of(Setup setup, int index, int[] replicationPorts, int[] membershipPorts) {
    return switch (setup.kind()) {
      case NO_REPLICATION -> new ManagerConfig(STANDARD_MANAGER, "", false);
      case ACK_WAIT_FLOOR -> new ManagerConfig(
          STANDARD_MANAGER + "\n  <Valve className=\"io.tandem.benchmarks.floor.AckWaitFloorValve\"/>", "", true);
      case TANDEM -> new ManagerConfig("<Manager className=\"io.tandem.tomcat.TandemManager\" clusterName=\"bench\""
          + " sharedSecret=\"" + SHARED_SECRET + "\" scope=\"" + setup.scope() + "\" mode=\"" + setup.mode() + "\""
          + " bindAddress=\"127.0.0.1\" transportPort=\"" + replicationPorts[index] + "\" membershipPort=\""
          + membershipPorts[index] + "\" members=\"127.0.0.1:" + membershipPorts[0] + ",127.0.0.1:" + membershipPorts[1]
          + "\"" + EXPIRY + "/>", "", false);
      case TOMCAT_BACKUP -> new ManagerConfig("", tribesCluster(
          "<Manager className=\"org.apache.catalina.ha.session.BackupManager\" notifyListenersOnReplication=\"true\""
              + EXPIRY + "/>",
          "", index, replicationPorts), false);
      case TOMCAT_DELTA -> new ManagerConfig("", tribesCluster(DELTA_MANAGER, "", index, replicationPorts), false);
      case TOMCAT_DELTA_SYNC -> new ManagerConfig("", tribesCluster(DELTA_MANAGER,
          " channelSendOptions=\"" + SYNCHRONOUS_SEND_OPTIONS + "\"", index, replicationPorts), false);
    };
  }

  /**
   * Tomcat's documented cluster (the "all defaults" example of the clustering how-to: send options left at their
   * defaults, asynchronous for DeltaManager's {@code channelSendOptions}, acknowledged for BackupManager's
   * {@code mapSendOptions}) with static members on loopback instead of multicast discovery, and the cluster manager
   * as the template for every distributable application.
   *
   * <p>{@code clusterAttributes} go on the {@code <Cluster>} element: empty for the defaults, or the synchronous
   * {@code channelSendOptions} of {@link Setup.Kind#TOMCAT_DELTA_SYNC}.
   *
   * <p>Every node lists every member, itself included: Tribes finds the local one by the Receiver's address and
   * port. {@code autoBind="1"} makes the Receiver take exactly its port or fail, since a Receiver that slid to the
   * next port would match no member.
   */
  private static String tribesCluster(String manager, String clusterAttributes, int index, int[] receiverPorts) {
    return "<Cluster className=\"org.apache.catalina.ha.tcp.SimpleTcpCluster\"" + clusterAttributes + ">\n"
        + "  " + manager + "\n"
        + "  <Channel className=\"org.apache.catalina.tribes.group.GroupChannel\">\n"
        + "    <Membership className=\"org.apache.catalina.tribes.membership.StaticMembershipService\">\n"
        + "      <Member className=\"org.apache.catalina.tribes.membership.StaticMember\" host=\"127.0.0.1\" port=\""
        + receiverPorts[0] + "\" uniqueId=\"" + uniqueId(0) + "\"/>\n"
        + "      <Member className=\"org.apache.catalina.tribes.membership.StaticMember\" host=\"127.0.0.1\" port=\""
        + receiverPorts[1] + "\" uniqueId=\"" + uniqueId(1) + "\"/>\n"
        + "    </Membership>\n"
        + "    <Receiver className=\"org.apache.catalina.tribes.transport.nio.NioReceiver\" address=\"127.0.0.1\""
        + " port=\"" + receiverPorts[index] + "\" autoBind=\"1\" selectorTimeout=\"5000\" maxThreads=\"6\"/>\n"
        + "    <Sender className=\"org.apache.catalina.tribes.transport.ReplicationTransmitter\">\n"
        + "      <Transport className=\"org.apache.catalina.tribes.transport.nio.PooledParallelSender\"/>\n"
        + "    </Sender>\n"
        + "    <Interceptor className=\"org.apache.catalina.tribes.group.interceptors.TcpPingInterceptor\" staticOnly=\"true\"/>\n"
        + "    <Interceptor className=\"org.apache.catalina.tribes.group.interceptors.TcpFailureDetector\"/>\n"
        + "    <Interceptor className=\"org.apache.catalina.tribes.group.interceptors.MessageDispatchInterceptor\"/>\n"
        + "  </Channel>\n"
        + "  <Valve className=\"org.apache.catalina.ha.tcp.ReplicationValve\" filter=\"\"/>\n"
        + "  <Valve className=\"org.apache.catalina.ha.session.JvmRouteBinderValve\"/>\n"
        + "  <ClusterListener className=\"org.apache.catalina.ha.session.ClusterSessionListener\"/>\n"
        + "</Cluster>";
  }

  private static String uniqueId(int index) {
    return "{0,0,0,0,0,0,0,0,0,0,0,0,0,0,0," + (index + 1) + "}";
  }
}
