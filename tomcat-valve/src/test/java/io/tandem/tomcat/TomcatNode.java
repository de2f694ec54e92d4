package io.tandem.tomcat;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpSession;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.TreeMap;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleState;
import org.apache.catalina.startup.Tomcat;

/**
 * An embedded Tomcat node whose web application is configured by a real {@code META-INF/context.xml} with the
 * Tandem {@code <Manager>}. Its servlet sets, reads, lists and invalidates session attributes over HTTP.
 */
final class TomcatNode implements AutoCloseable {
  final String route;
  final Tomcat tomcat;
  final Context context;
  final int httpPort;

  TomcatNode(Path workDir, String route, String managerAttributes) throws Exception {
    this(workDir, route, managerAttributes, TandemManager.class.getName());
  }

  /** @param managerClass the {@code <Manager className>}: Tandem's, or a test's subclass of it */
  TomcatNode(Path workDir, String route, String managerAttributes, String managerClass) throws Exception {
    this.route = route;
    Path base = Files.createDirectories(workDir.resolve(route));
    Path docBase = Files.createDirectories(base.resolve("webapp"));
    Files.createDirectories(docBase.resolve("META-INF"));
    Files.writeString(docBase.resolve("META-INF/context.xml"),
        "<Context>\n  <Manager className=\"" + managerClass + "\" " + managerAttributes + "/>\n</Context>\n",
        StandardCharsets.UTF_8);
    tomcat = new Tomcat();
    tomcat.setBaseDir(base.toString());
    httpPort = freePort();
    tomcat.setPort(httpPort);
    tomcat.getConnector();
    tomcat.getEngine().setJvmRoute(route);
    tomcat.getEngine().setRealm(new TestRealm());
    tomcat.setAddDefaultWebXmlToWebapp(false);
    context = tomcat.addWebapp("", docBase.toString());
    org.apache.tomcat.util.descriptor.web.LoginConfig login = new org.apache.tomcat.util.descriptor.web.LoginConfig();
    login.setAuthMethod("FORM");
    login.setLoginPage("/login.html");
    login.setErrorPage("/login-error.html");
    context.setLoginConfig(login);
    org.apache.tomcat.util.descriptor.web.SecurityConstraint constraint = new org.apache.tomcat.util.descriptor.web.SecurityConstraint();
    constraint.addAuthRole("user");
    org.apache.tomcat.util.descriptor.web.SecurityCollection secured = new org.apache.tomcat.util.descriptor.web.SecurityCollection();
    secured.addPattern("/secure/*");
    constraint.addCollection(secured);
    context.addConstraint(constraint);
    context.addSecurityRole("user");
    Tomcat.addServlet(context, "session", new SessionServlet()).setAsyncSupported(true);
    context.addApplicationListener(ActivationProbe.CreationRecorder.class.getName());
    context.addServletMappingDecoded("/*", "session");
    tomcat.start();
    if (context.getState() != LifecycleState.STARTED) {
      close();
      throw new IllegalStateException("context of " + route + " did not start");
    }
  }

  static int freePort() {
    return io.tandem.core.testing.FreePorts.loopback();
  }

  TandemManager manager() {
    return (TandemManager) context.getManager();
  }

  String url(String pathAndQuery) {
    return "http://localhost:" + httpPort + pathAndQuery;
  }

  /**
   * Dies as {@code kill -9} would, as far as the other nodes can tell: Tandem halts with no handoff and no goodbye
   * ({@link TandemManager#haltWithoutHandoff}), then Tomcat stops so that the node no longer answers.
   */
  void crash() throws org.apache.catalina.LifecycleException {
    manager().haltWithoutHandoff();
    close();
  }

  @Override
  public void close() throws org.apache.catalina.LifecycleException {
    if (tomcat.getServer().getState().isAvailable()) {
      tomcat.stop();
    }
    tomcat.destroy();
  }

  /**
   * A realm of users in role "user", password "secret": alice; carol and dave, whose principals carry an application
   * principal of the web application's own class ({@link EvolvingClasses#STABLE}, {@link EvolvingClasses#PLAIN}),
   * made through the request's context class loader, as a realm or JAAS module of the application would.
   */
  static final class TestRealm extends org.apache.catalina.realm.RealmBase {
    private static final java.util.Set<String> USERS = java.util.Set.of("alice", "carol", "dave");

    @Override
    protected String getPassword(String username) {
      return USERS.contains(username) ? "secret" : null;
    }

    @Override
    protected java.security.Principal getPrincipal(String username) {
      if (!USERS.contains(username)) {
        return null;
      }
      ClassLoader application = Thread.currentThread().getContextClassLoader();
      java.security.Principal user = switch (username) {
        case "carol" -> EvolvingClasses.principal(application, EvolvingClasses.STABLE, username);
        case "dave" -> EvolvingClasses.principal(application, EvolvingClasses.PLAIN, username);
        default -> null;
      };
      return new org.apache.catalina.realm.GenericPrincipal(username, List.of("user"), user);
    }
  }

  /** A value class no test configures in allowedClasses: Tandem must refuse it. */
  record Unlisted(String value) implements java.io.Serializable {}

  /** Holds {@code /slowset} requests after their write until a test opens it. */
  static volatile java.util.concurrent.CountDownLatch slowGate = new java.util.concurrent.CountDownLatch(0);

  /** Holds {@code /lateset} requests before they ask for their session until a test opens it. */
  static volatile java.util.concurrent.CountDownLatch lateGate = new java.util.concurrent.CountDownLatch(0);
  /** Counted down by each {@code /lateset} request as it reaches the application (admitted by the valve). */
  static volatile java.util.concurrent.CountDownLatch lateArrived = new java.util.concurrent.CountDownLatch(0);

  /**
   * A page of {@code bytes} bytes ({@code length=declared} with {@code Content-Length}, else chunked) that stores
   * {@code name}={@code value} ({@code kind=nested-unlisted}: a value Tandem cannot replicate) before its first byte
   * ({@code set=before}) or after its last ({@code set=after}), and flushes after its first half ({@code flush=mid}),
   * after its last byte ({@code flush=end}) or never, or closes its stream after the last byte ({@code flush=close}).
   */
  record Page(String name, String value, boolean replicable, int bytes, boolean declared, boolean setAfter, String flush) {
    Page(HttpServletRequest request) {
      this(request.getParameter("name"), request.getParameter("value"),
          !"nested-unlisted".equals(request.getParameter("kind")), Integer.parseInt(request.getParameter("bytes")),
          "declared".equals(request.getParameter("length")), "after".equals(request.getParameter("set")),
          String.valueOf(request.getParameter("flush")));
    }

    void write(HttpSession session, HttpServletResponse response) throws IOException {
      Object stored = replicable ? value : new java.util.ArrayList<>(List.of(value, new Unlisted(value)));
      response.setContentType("text/plain");
      if (declared) {
        response.setContentLength(bytes);
      }
      if (!setAfter) {
        session.setAttribute(name, stored);
      }
      byte[] body = new byte[bytes];
      java.util.Arrays.fill(body, (byte) 'x');
      jakarta.servlet.ServletOutputStream out = response.getOutputStream();
      out.write(body, 0, bytes / 2);
      if (flush.equals("mid")) {
        out.flush();
      }
      out.write(body, bytes / 2, bytes - bytes / 2);
      if (flush.equals("end")) {
        out.flush();
      } else if (flush.equals("close")) {
        out.close();
      }
      if (setAfter) {
        session.setAttribute(name, stored);
      }
    }
  }

  /**
   * {@code /set?name=&value=}, {@code /setobj?kind=&name=&value=}, {@code /get?name=}, {@code /list}, {@code
   * /invalidate}, {@code /login?user=&pass=}, {@code /whoami}.
   */
  static final class SessionServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
      response.setContentType("text/plain");
      String path = request.getPathInfo() == null ? request.getServletPath() : request.getPathInfo();
      switch (path) {
        case "/set" -> {
          HttpSession session = request.getSession(true);
          session.setAttribute(request.getParameter("name"), request.getParameter("value"));
          response.getWriter().print("ok " + session.getId());
        }
        case "/setobj" -> {
          HttpSession session = request.getSession(true);
          String value = request.getParameter("value");
          Object object = switch (request.getParameter("kind")) {
            case "unlisted" -> new Unlisted(value);
            case "nested-unlisted" -> new java.util.ArrayList<>(List.of(value, new Unlisted(value)));
            case "chars" -> "x".repeat(Integer.parseInt(value)); // a value of that many characters
            // classes of the web application's own WEB-INF/classes, one version per node (EvolvingClassesIT)
            case "profile" -> EvolvingClasses.profile(Thread.currentThread().getContextClassLoader(), value);
            case "badge" -> EvolvingClasses.badge(Thread.currentThread().getContextClassLoader(), value);
            default -> value;
          };
          try {
            session.setAttribute(request.getParameter("name"), object);
            response.getWriter().print("ok " + session.getId());
          } catch (IllegalArgumentException e) {
            response.sendError(400, "refused: " + e.getMessage());
          }
        }
        case "/slowset" -> {
          HttpSession session = request.getSession(true);
          session.setAttribute(request.getParameter("name"), request.getParameter("value"));
          try {
            slowGate.await(20, java.util.concurrent.TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          response.getWriter().print("ok");
        }
        case "/lateset" -> {
          lateArrived.countDown();
          try {
            lateGate.await(20, java.util.concurrent.TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          HttpSession session = request.getSession(true);
          session.setAttribute(request.getParameter("name"), request.getParameter("value"));
          response.getWriter().print("ok " + session.getId());
        }
        case "/error-page" -> { // an error page that asks for the session, as a JSP does by default
          HttpSession session = request.getSession(true);
          response.getWriter().print("error page, session " + session.getId());
        }
        case "/append" -> {
          HttpSession session = request.getSession(true);
          @SuppressWarnings("unchecked")
          List<String> list = (List<String>) session.getAttribute("list");
          if (list == null) {
            list = new java.util.ArrayList<>();
            session.setAttribute("list", list);
          }
          list.add(request.getParameter("value"));
          response.getWriter().print("ok " + list.size());
        }
        case "/get" -> {
          HttpSession session = request.getSession(false);
          response.getWriter().print(session == null ? "no-session" : String.valueOf(session.getAttribute(request.getParameter("name"))));
        }
        case "/list" -> {
          HttpSession session = request.getSession(false);
          if (session == null) {
            response.getWriter().print("no-session");
            return;
          }
          TreeMap<String, Object> all = new TreeMap<>();
          for (String name : Collections.list(session.getAttributeNames())) {
            all.put(name, session.getAttribute(name));
          }
          response.getWriter().print(all);
        }
        case "/login.html" -> response.getWriter().print("login-form");
        case "/login-error.html" -> response.getWriter().print("login-error");
        case "/secure/page" -> response.getWriter().print("secret for " + request.getUserPrincipal().getName());
        case "/probe" -> {
          request.getSession(true).setAttribute("probe", new ActivationProbe());
          response.getWriter().print("ok");
        }
        case "/events" -> response.getWriter().print(ActivationProbe.events(request.getServletContext()));
        case "/skip.css" -> {
          request.getSession(true).setAttribute(request.getParameter("name"), request.getParameter("value"));
          response.getWriter().print("ok");
        }
        case "/async" -> {
          HttpSession session = request.getSession(true);
          jakarta.servlet.AsyncContext async = request.startAsync();
          String name = request.getParameter("name");
          String value = request.getParameter("value");
          new Thread(() -> {
            try {
              session.setAttribute(name, value);
              async.getResponse().getWriter().print("ok");
            } catch (IOException e) {
              throw new java.io.UncheckedIOException(e);
            } finally {
              async.complete();
            }
          }, "async-test-worker").start();
        }
        case "/page", "/page.css" -> new Page(request).write(request.getSession(true), response);
        case "/asyncpage" -> {
          HttpSession session = request.getSession(true);
          Page page = new Page(request);
          jakarta.servlet.AsyncContext async = request.startAsync();
          new Thread(() -> {
            try {
              page.write(session, (HttpServletResponse) async.getResponse());
            } catch (IOException e) {
              // the connection was aborted: the client sees that
            } finally {
              async.complete();
            }
          }, "async-page-worker").start();
        }
        case "/login" -> {
          request.getSession(true);
          try {
            request.login(request.getParameter("user"), request.getParameter("pass"));
            response.getWriter().print("logged-in " + request.getSession(false).getId());
          } catch (jakarta.servlet.ServletException e) {
            response.getWriter().print("login-failed");
          }
        }
        case "/whoami" -> {
          java.security.Principal user = request.getUserPrincipal();
          response.getWriter().print(user == null ? "anonymous" : user.getName());
        }
        case "/maxinactive" -> {
          HttpSession session = request.getSession(false);
          if (request.getParameter("seconds") != null) {
            session.setMaxInactiveInterval(Integer.parseInt(request.getParameter("seconds")));
          }
          response.getWriter().print(session == null ? "no-session" : String.valueOf(session.getMaxInactiveInterval()));
        }
        case "/invalidate" -> {
          HttpSession session = request.getSession(false);
          if (session != null) {
            session.invalidate();
          }
          response.getWriter().print("invalidated");
        }
        default -> response.sendError(404);
      }
    }
  }
}
