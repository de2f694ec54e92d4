<%@ page contentType="text/plain; charset=UTF-8" session="false" import="java.lang.management.ManagementFactory,javax.management.*,java.net.URLEncoder,java.nio.charset.StandardCharsets" trimDirectiveWhitespaces="true" %>
<%--
  Tandem's JMX figures of this node, read from the platform MBean server as an operator's monitoring would: the drill
  polls them to time how long the cluster takes to hold two copies of every session again, and (rogue-member) to see
  whom the node admitted and whom it refused, and (rolling-upgrade) which protocol version each connection speaks, and (app-redeploy) how many values it could not read. Figures that may hold spaces are URL-encoded, one token each.
--%>
<%
  MBeanServer server = ManagementFactory.getPlatformMBeanServer();
  for (ObjectName name : server.queryNames(new ObjectName("io.tandem:type=Replication,*"), null)) {
    out.print("buddy=" + server.getAttribute(name, "Buddy")
        + " members=" + server.getAttribute(name, "Members")
        + " owned=" + server.getAttribute(name, "OwnedSessions")
        + " backups=" + server.getAttribute(name, "BackupSessions")
        + " withoutBackup=" + server.getAttribute(name, "SessionsWithoutBackup")
        + " refusedPeers=" + server.getAttribute(name, "RefusedPeers")
        + " refusalsByCause=" + URLEncoder.encode(String.valueOf(server.getAttribute(name, "RefusalsByCause")), StandardCharsets.UTF_8)
        + " refusedMembers=" + URLEncoder.encode(String.valueOf(server.getAttribute(name, "RefusedMembers")), StandardCharsets.UTF_8)
        + " attributesUnreadable=" + server.getAttribute(name, "AttributesUnreadable")
        + " protocolVersions=" + URLEncoder.encode(String.valueOf(server.getAttribute(name, "ProtocolVersions")), StandardCharsets.UTF_8));
  }
%>
