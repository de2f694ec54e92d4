package io.tandem.spring;

import io.micrometer.core.instrument.MeterRegistry;
import io.tandem.tomcat.TandemManager;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Tandem's JMX figures as Micrometer meters ({@link TandemMetrics}) when the application has Micrometer and a {@link
 * MeterRegistry} bean, as Actuator gives it. The binder is a {@code MeterBinder} bean: Actuator binds it to the
 * registry. Ordered after Actuator's registry auto-configuration (named, so that Actuator stays optional) so that
 * {@link ConditionalOnBean} sees the registry it creates.
 */
@AutoConfiguration(after = TandemAutoConfiguration.class,
    afterName = "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration")
@ConditionalOnClass({MeterRegistry.class, TandemManager.class})
@ConditionalOnBean(TandemAutoConfiguration.class)
public class TandemMetricsAutoConfiguration {

  @Bean
  @ConditionalOnBean(MeterRegistry.class)
  @ConditionalOnMissingBean
  TandemMetrics tandemMetrics() {
    return new TandemMetrics();
  }
}
