<%@ page contentType="text/plain; charset=UTF-8" session="false" import="java.util.*,io.tandem.drill.values.*" trimDirectiveWhitespaces="true" %>
<%--
  The app-redeploy drill's page (under /secure, behind the FORM login), as session.jsp, plus a value of the
  application's own class Profile, whose fields change between release 1 and release 2 of the application. "set"
  stores name=value and seq; with profile=1 it also stores the Profile of this write. Every answer names the release
  that served it and the principal, and a write's answer shows the profile as this release reads it.
--%>
<%
  String served = "node=" + application.getInitParameter("drill.node") + " user=" + request.getRemoteUser()
      + " principal=" + DrillValues.describePrincipal(request.getUserPrincipal()) + " release=" + Profile.release();
  String action = request.getParameter("action");
  if ("set".equals(action)) {
    HttpSession s = request.getSession(true);
    Object previous = s.getAttribute("seq");
    long before = previous == null ? -1 : (Long) previous;
    s.setAttribute(request.getParameter("name"), request.getParameter("value"));
    long seq = Long.parseLong(request.getParameter("seq"));
    s.setAttribute("seq", Math.max(before, seq));
    if ("1".equals(request.getParameter("profile"))) {
      s.setAttribute("profile", Profile.of(request.getParameter("value"), seq));
    }
    out.print("ok prev=" + before + " " + served + " profile=" + s.getAttribute("profile"));
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
