<%@ page contentType="text/plain; charset=UTF-8" session="true" trimDirectiveWhitespaces="true"
    import="java.util.Enumeration,java.util.concurrent.ThreadLocalRandom" %>
<%--
  The growing-session page of the servlet report's workload: each request adds one random string of `size`
  characters (ASCII, so `size` bytes) under `name`, then traverses every attribute of the session and includes it in
  the page. Random, so that no compression along the replication path makes the session look smaller than it is.
--%>
<%!
  private static final char[] ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".toCharArray();
%>
<%
  String name = request.getParameter("name");
  String sizeParameter = request.getParameter("size");
  int size;
  try {
    size = Integer.parseInt(sizeParameter);
  } catch (NumberFormatException e) {
    size = -1;
  }
  if (name == null || name.isEmpty() || size < 0 || size > 1_048_576) {
    response.sendError(400, "grow.jsp needs name=<attribute> and size=<0..1048576 bytes>, got name=" + name + " size=" + sizeParameter);
    return;
  }
  char[] value = new char[size];
  ThreadLocalRandom random = ThreadLocalRandom.current();
  for (int i = 0; i < size; i++) {
    value[i] = ALPHABET[random.nextInt(ALPHABET.length)];
  }
  session.setAttribute(name, new String(value));
  int count = 0;
  for (Enumeration<String> names = session.getAttributeNames(); names.hasMoreElements(); ) {
    String attribute = names.nextElement();
    out.print(attribute + "=" + session.getAttribute(attribute) + "\n");
    count++;
  }
  out.print("attributes=" + count + "\n");
%>
