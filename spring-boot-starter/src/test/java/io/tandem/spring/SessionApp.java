package io.tandem.spring;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpSession;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;

/**
 * The smallest Spring Boot application with an HTTP session: Tandem comes from auto-configuration alone, as it would
 * in a user's application that adds the module. {@code /set?name=&value=} and {@code /get?name=}; {@code /buddy}
 * answers the node's buddy as Tandem's JMX figures give it (empty while it has none). Prints {@code ready <port>} on
 * standard output once it serves, for the test that started it.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class SessionApp {

  public static void main(String[] args) {
    SpringApplication.run(SessionApp.class, args);
  }

  @Bean
  ServletRegistrationBean<HttpServlet> sessionServlet() {
    return new ServletRegistrationBean<>(new SessionServlet(), "/set", "/get", "/buddy");
  }

  @Bean
  ApplicationListener<ApplicationReadyEvent> announceReady() {
    return event -> System.out.println(
        "ready " + ((WebServerApplicationContext) event.getApplicationContext()).getWebServer().getPort());
  }

  static final class SessionServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
      response.setContentType("text/plain");
      if (request.getServletPath().equals("/buddy")) {
        response.getWriter().print(buddy());
      } else if (request.getServletPath().equals("/set")) {
        HttpSession session = request.getSession(true);
        session.setAttribute(request.getParameter("name"), request.getParameter("value"));
        response.getWriter().print("ok " + session.getId());
      } else {
        HttpSession session = request.getSession(false);
        response.getWriter().print(
            session == null ? "no-session" : String.valueOf(session.getAttribute(request.getParameter("name"))));
      }
    }

    private static String buddy() throws IOException {
      MBeanServer server = ManagementFactory.getPlatformMBeanServer();
      try {
        for (ObjectName name : server.queryNames(new ObjectName("io.tandem:type=Replication,*"), null)) {
          return String.valueOf(server.getAttribute(name, "Buddy"));
        }
        return "";
      } catch (JMException e) {
        throw new IOException(e);
      }
    }
  }
}
