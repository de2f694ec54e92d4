<%@ page contentType="text/plain; charset=UTF-8" session="false" import="java.util.*,io.tandem.drill.values.DrillValues" trimDirectiveWhitespaces="true" %>
<%--
  The poison-values drill's page: "set" stores the value of a kind (DrillValues.make) under a name; a value Tandem
  refuses at setAttribute (an IllegalArgumentException) is answered 400 "refused ...": the write did not happen, and
  neither did its seq. Listings describe each value as one token (DrillValues.describe), and every answer names the
  node, the user and the principal's class, so the drill can tell that a custom principal survived a failover.
--%>
<%
  String served = "node=" + application.getInitParameter("drill.node") + " user=" + request.getRemoteUser()
      + " principal=" + DrillValues.describePrincipal(request.getUserPrincipal());
  String action = request.getParameter("action");
  if ("set".equals(action)) {
    HttpSession s = request.getSession(true);
    Object previous = s.getAttribute("seq");
    long before = previous == null ? -1 : (Long) previous;
    Object value = DrillValues.make(request.getParameter("kind"), request.getParameter("id"));
    try {
      s.setAttribute(request.getParameter("name"), value);
    } catch (IllegalArgumentException refused) {
      response.setStatus(400);
      out.print("refused " + String.valueOf(refused.getMessage()).replaceAll("\\s+", " "));
      return;
    }
    String seq = request.getParameter("seq");
    if (seq != null) {
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
      TreeMap<String, String> all = new TreeMap<>();
      for (String name : Collections.list(s.getAttributeNames())) {
        all.put(name, DrillValues.describe(s.getAttribute(name)));
      }
      out.print("session " + served + " " + all);
    }
  }
%>
