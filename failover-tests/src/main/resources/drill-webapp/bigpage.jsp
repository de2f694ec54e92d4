<%@ page contentType="text/plain; charset=UTF-8" session="false" import="java.util.*,java.nio.charset.StandardCharsets" trimDirectiveWhitespaces="true" %>
<%--
  The big-pages drill's write: session.jsp's "set", answered in a page of "bytes" bytes (20-200 KiB: larger than
  Tomcat's 8 KiB response buffer, so the response commits while the page is written). "length=declared" sends a
  Content-Length, otherwise the page is chunked; "flush=mid" flushes halfway; "set=after" stores the write after the
  last byte of the page was written (after the commit), otherwise before the first. "kind" stores a value of that kind
  (DrillValues.make: "secret-list" is one Tandem cannot replicate) instead of the plain string. Mapped as /asyncpage too (web.xml),
  where a thread of the container's writes it after startAsync and completes the request. The answer's first
  line is session.jsp's, so the drill parses both alike; the padding after it is one token.
--%>
<%
  final HttpSession s = request.getSession(true);
  final String served = "node=" + application.getInitParameter("drill.node") + " user=" + request.getRemoteUser();
  final String name = request.getParameter("name");
  final String value = request.getParameter("value");
  final Object stored = request.getParameter("kind") == null ? value
      : io.tandem.drill.values.DrillValues.make(request.getParameter("kind"), value);
  final String seq = request.getParameter("seq");
  final int bytes = Integer.parseInt(request.getParameter("bytes"));
  final boolean declared = "declared".equals(request.getParameter("length"));
  final boolean flushMid = "mid".equals(request.getParameter("flush"));
  final boolean after = "after".equals(request.getParameter("set"));
  class Page {
    void store(long before) {
      s.setAttribute(name, stored);
      if (seq != null) {
        s.setAttribute("seq", Math.max(before, Long.parseLong(seq)));
      }
    }

    void write(HttpServletResponse to) throws java.io.IOException {
      Object previous = s.getAttribute("seq");
      long before = previous == null ? -1 : (Long) previous;
      byte[] head = ("ok prev=" + before + " " + served + " pad=").getBytes(StandardCharsets.UTF_8);
      int total = Math.max(bytes, head.length);
      byte[] body = new byte[total];
      System.arraycopy(head, 0, body, 0, head.length);
      Arrays.fill(body, head.length, total, (byte) '.');
      to.setContentType("text/plain; charset=UTF-8");
      if (declared) {
        to.setContentLength(total);
      }
      if (!after) {
        store(before);
      }
      ServletOutputStream stream = to.getOutputStream();
      stream.write(body, 0, total / 2);
      if (flushMid) {
        stream.flush();
      }
      stream.write(body, total / 2, total - total / 2);
      if (after) {
        store(before);
      }
    }
  }
  final Page answer = new Page();
  if (request.isAsyncSupported()) {
    final AsyncContext async = request.startAsync();
    async.start(() -> {
      try {
        answer.write((HttpServletResponse) async.getResponse());
      } catch (java.io.IOException e) {
        // The response was aborted: the client sees that.
      } finally {
        async.complete();
      }
    });
  } else {
    answer.write(response);
  }
%>