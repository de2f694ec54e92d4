<%@ page contentType="text/plain; charset=UTF-8" session="false" import="java.util.*" trimDirectiveWhitespaces="true" %>
<%
  String action = request.getParameter("action");
  if ("set".equals(action)) {
    HttpSession s = request.getSession(true);
    s.setAttribute(request.getParameter("name"), request.getParameter("value"));
    out.print("ok");
  } else {
    HttpSession s = request.getSession(false);
    if (s == null) {
      out.print("no-session");
    } else {
      TreeMap<String, Object> all = new TreeMap<>();
      for (String name : Collections.list(s.getAttributeNames())) {
        all.put(name, s.getAttribute(name));
      }
      out.print(all);
    }
  }
%>
