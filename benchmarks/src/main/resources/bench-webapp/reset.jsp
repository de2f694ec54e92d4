<%@ page contentType="text/plain; charset=UTF-8" session="false" import="java.lang.management.ManagementFactory,javax.management.*" trimDirectiveWhitespaces="true" %>
<%--
  Ends every session of this node through the manager's own JMX operations (as an operator's console would), so
  that the next load step starts from an empty node instead of from the sessions an earlier, heavier step left to
  time out. Prints how many were ended and how many are left.
--%>
<%
  MBeanServer server = ManagementFactory.getPlatformMBeanServer();
  int ended = 0;
  for (ObjectName name : server.queryNames(new ObjectName("Catalina:type=Manager,*"), null)) {
    if (!"/bench".equals(name.getKeyProperty("context"))) {
      continue;
    }
    String ids = (String) server.invoke(name, "listSessionIds", null, null);
    for (String id : ids.trim().split("\\s+")) {
      if (!id.isEmpty()) {
        server.invoke(name, "expireSession", new Object[] {id}, new String[] {"java.lang.String"});
        ended++;
      }
    }
    out.print("ended=" + ended + " left=" + server.getAttribute(name, "activeSessions") + "\n");
  }
%>
