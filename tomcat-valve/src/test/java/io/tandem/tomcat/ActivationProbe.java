package io.tandem.tomcat;

import jakarta.servlet.ServletContext;
import jakarta.servlet.http.HttpSessionActivationListener;
import jakarta.servlet.http.HttpSessionEvent;
import java.io.Serializable;
import java.util.List;

/** A session attribute that notes, in its application's context, each time its session is activated on a node. */
public final class ActivationProbe implements HttpSessionActivationListener, Serializable {
  private static final long serialVersionUID = 1L;
  static final String EVENTS = "activation-events";

  @Override
  public void sessionDidActivate(HttpSessionEvent event) {
    events(event.getSession().getServletContext()).add("activated " + event.getSession().getId());
  }

  @Override
  public void sessionWillPassivate(HttpSessionEvent event) {}

  /** Notes every session the container creates, so a test can tell a takeover from a new session. */
  public static final class CreationRecorder implements jakarta.servlet.http.HttpSessionListener {
    @Override
    public void sessionCreated(HttpSessionEvent event) {
      events(event.getSession().getServletContext()).add("created " + event.getSession().getId());
    }
  }

  @SuppressWarnings("unchecked")
  static List<String> events(ServletContext context) {
    synchronized (context) {
      Object events = context.getAttribute(EVENTS);
      if (events == null) {
        events = new java.util.concurrent.CopyOnWriteArrayList<String>();
        context.setAttribute(EVENTS, events);
      }
      return (List<String>) events;
    }
  }
}
