<%@ page contentType="text/plain; charset=UTF-8" session="true" trimDirectiveWhitespaces="true" %>
<%--
  The HTTPSession primitive of the Geronimo report: one small setAttribute per request (a counter), nothing else.
  The driver's query parameters are ignored here.
--%>
<%
  Integer hits = (Integer) session.getAttribute("hits");
  int next = hits == null ? 1 : hits + 1;
  session.setAttribute("hits", next);
  out.print("hits=" + next + "\n");
%>
