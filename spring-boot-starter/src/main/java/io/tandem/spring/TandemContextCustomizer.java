package io.tandem.spring;

import io.tandem.tomcat.TandemManager;
import org.apache.catalina.Container;
import org.apache.catalina.Context;
import org.apache.catalina.Engine;
import org.apache.tomcat.util.IntrospectionUtils;
import org.springframework.boot.web.embedded.tomcat.TomcatContextCustomizer;

/**
 * Puts a {@link TandemManager} on the embedded Tomcat's context, configured as a context.xml {@code <Manager>}
 * element would be: each property goes through {@link IntrospectionUtils#setProperty}, which is what Tomcat's
 * digester does with an element's attributes (a setter if the manager has one, else {@code setProperty}). The
 * manager installs its own valve and validates everything when the context starts.
 *
 * <p>Spring Boot runs context customizers after it has added the context to its host and set up its own session
 * manager, so the Engine is reachable for the jvmRoute and the manager set here is the one that starts.
 */
final class TandemContextCustomizer implements TomcatContextCustomizer {
  private final TandemProperties properties;

  TandemContextCustomizer(TandemProperties properties) {
    this.properties = properties;
  }

  @Override
  public void customize(Context context) {
    properties.jvmRoute().ifPresent(route -> engine(context).setJvmRoute(route));
    TandemManager manager = new TandemManager();
    properties.attributes().forEach((name, value) -> IntrospectionUtils.setProperty(manager, name, value));
    context.setManager(manager);
  }

  private static Engine engine(Context context) {
    for (Container parent = context.getParent(); parent != null; parent = parent.getParent()) {
      if (parent instanceof Engine engine) {
        return engine;
      }
    }
    throw new IllegalStateException("tandem.jvm-route: the context " + context.getName()
        + " is not in an Engine yet, so its jvmRoute cannot be set");
  }
}
