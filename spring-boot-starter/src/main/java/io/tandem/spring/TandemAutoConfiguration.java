package io.tandem.spring;

import io.tandem.tomcat.TandemManager;
import org.apache.catalina.startup.Tomcat;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.embedded.tomcat.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Tandem session replication for Spring Boot's embedded Tomcat: with this module on the class path, the servlet
 * application's context gets a {@link TandemManager} configured by the {@code tandem.*} properties (see {@link
 * TandemProperties}). {@code tandem.enabled=false} turns it off, for a single developer instance.
 */
@AutoConfiguration
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass({Tomcat.class, TandemManager.class})
@ConditionalOnProperty(prefix = TandemProperties.PREFIX, name = "enabled", havingValue = "true", matchIfMissing = true)
public class TandemAutoConfiguration {

  @Bean
  WebServerFactoryCustomizer<TomcatServletWebServerFactory> tandemSessionManager(Environment environment) {
    TandemProperties properties = TandemProperties.bind(environment);
    return factory -> factory.addContextCustomizers(new TandemContextCustomizer(properties));
  }
}
