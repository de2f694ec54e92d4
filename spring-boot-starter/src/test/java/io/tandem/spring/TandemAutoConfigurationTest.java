package io.tandem.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.tomcat.TandemManager;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.web.servlet.context.ServletWebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/** The auto-configuration in a real Spring Boot application with embedded Tomcat, in this JVM. */
class TandemAutoConfigurationTest {
  private static final String LOGGING_SYSTEM = "org.springframework.boot.logging.LoggingSystem";

  @Test
  void invalidProperties_stopTheApplication_withTheManagersMessageNamingEveryViolation() {
    List<String> errors = new CopyOnWriteArrayList<>();
    Handler capture = new Handler() {
      @Override
      public void publish(LogRecord record) {
        errors.add(String.valueOf(record.getMessage()));
      }

      @Override
      public void flush() {}

      @Override
      public void close() {}
    };
    Logger logger = Logger.getLogger(TandemManager.class.getName());
    logger.addHandler(capture);
    // Spring Boot's own logging set-up resets JDK logging, which would remove the handler.
    System.setProperty(LOGGING_SYSTEM, "none");
    try {
      assertThatThrownBy(() -> SpringApplication.run(SessionApp.class, "--server.port=0",
          "--server.address=127.0.0.1", "--tandem.jvm-route=n1", "--tandem.scope=EVERYTHING",
          "--tandem.shared-secret=short", "--tandem.transport-port=99999", "--tandem.membership-port=5701",
          "--tandem.discovery=kubernetes", "--tandem.ack-timeuot=5s").close())
          .isInstanceOf(RuntimeException.class);
    } finally {
      System.clearProperty(LOGGING_SYSTEM);
      logger.removeHandler(capture);
    }

    assertThat(errors).anySatisfy(message -> assertThat(message)
        .contains("Invalid Tandem configuration")
        .contains("scope: 'EVERYTHING'")
        .contains("sharedSecret: must be at least 16 bytes")
        .contains("transportPort: '99999'")
        .contains("discovery: \"kubernetes\" needs kubernetesServiceDns")
        .contains("ackTimeuot: unknown attribute"));
  }

  @Test
  void disabled_leavesTomcatsOwnSessionManager() {
    try (ConfigurableApplicationContext context = SpringApplication.run(SessionApp.class, "--server.port=0",
        "--server.address=127.0.0.1", "--tandem.enabled=false")) {
      org.apache.catalina.Context tomcatContext = (org.apache.catalina.Context)
          ((org.springframework.boot.web.embedded.tomcat.TomcatWebServer)
              ((ServletWebServerApplicationContext) context).getWebServer()).getTomcat().getHost().findChildren()[0];

      assertThat(tomcatContext.getManager()).isNotInstanceOf(TandemManager.class);
      assertThat(context.getBeansOfType(TandemMetrics.class)).isEmpty();
    }
  }
}
