<%@ page contentType="text/plain; charset=UTF-8" session="false" import="java.util.*" trimDirectiveWhitespaces="true" %>
<%--
  The drill's application. Every answer names the node that served it and the authenticated user, so a drill can
  tell where a write landed through any load balancer. "set" answers the session's "seq" (the highest write number
  applied) before the write: a drill proves with it that no node served a session older than an acknowledged write.
--%>
<%
  String served = "node=" + application.getInitParameter("drill.node") + " user=" + request.getRemoteUser();
  String action = request.getParameter("action");
  if ("set".equals(action)) {
    HttpSession s = request.getSession(true);
    Object previous = s.getAttribute("seq");
    long before = previous == null ? -1 : (Long) previous;
    s.setAttribute(request.getParameter("name"), request.getParameter("value"));
    String seq = request.getParameter("seq");
    if (seq != null) {
      // The highest write number applied: a write that lands late (its client gave up on it) cannot lower it, so a
      // lower number can only mean a copy that missed writes.
      s.setAttribute("seq", Math.max(before, Long.parseLong(seq)));
    }
    out.print("ok prev=" + before + " " + served);
  } else if ("invalidate".equals(action)) {
    HttpSession s = request.getSession(false);
    if (s != null) {
      s.invalidate();
    }
    out.print("ok " + served);
  } else {
    HttpSession s = request.getSession(false);
    if (s == null) {
      out.print("no-session " + served);
    } else {
      TreeMap<String, Object> all = new TreeMap<>();
      for (String name : Collections.list(s.getAttributeNames())) {
        all.put(name, s.getAttribute(name));
      }
      out.print("session " + served + " " + all);
    }
  }
%>
