<%@ page contentType="text/plain; charset=UTF-8" session="false" import="java.lang.management.ManagementFactory,javax.management.*" trimDirectiveWhitespaces="true" %>
<%--
  This node's figures for the load benchmark, read from the platform MBean server as an operator's monitoring would.
  Tandem's replication counters when Tandem is the manager (nothing otherwise), then the live sessions of every
  manager (Tomcat registers one per application, whatever its class).
--%>
<%
  MBeanServer server = ManagementFactory.getPlatformMBeanServer();
  for (ObjectName name : server.queryNames(new ObjectName("io.tandem:type=Replication,*"), null)) {
    for (String attribute : new String[] {"BytesReplicated", "AckTimeouts", "SlowAcks", "SendFailures", "AsyncOverflows", "FullSessionsSent", "DeltasSent", "Buddy", "RequestsSent", "RequestsServed", "FramesWritten", "SocketWrites", "CallerWrites", "AcksReceived"}) {
      out.print("tandem." + attribute + "=" + server.getAttribute(name, attribute) + "\n");
    }
  }
  for (ObjectName name : server.queryNames(new ObjectName("Catalina:type=Manager,*"), null)) {
    if ("/bench".equals(name.getKeyProperty("context"))) {
      out.print("manager.activeSessions=" + server.getAttribute(name, "activeSessions") + "\n");
    }
  }
%>
