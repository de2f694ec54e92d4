package io.tandem.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.tomcat.TandemManager;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

class TandemPropertiesTest {

  private static StandardEnvironment environment(Map<String, Object> environmentVariables, Map<String, Object> properties) {
    StandardEnvironment environment = new StandardEnvironment();
    environment.getPropertySources().remove(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME);
    environment.getPropertySources().remove(StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME);
    // Spring Boot's order: environment variables before application.properties.
    environment.getPropertySources().addLast(new SystemEnvironmentPropertySource(
        StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, environmentVariables));
    environment.getPropertySources().addLast(new MapPropertySource("application.properties", properties));
    return environment;
  }

  @Test
  void bind_kebabCamelAndEnvironmentSpellings_giveTheManagersAttributeNames() {
    TandemProperties properties = TandemProperties.bind(environment(
        Map.of("TANDEM_SHAREDSECRETFILE", "/run/secrets/tandem", "TANDEM_MEMBERSHIP_PORT", "5701"),
        Map.of("tandem.members", "10.0.0.1:5701,10.0.0.2:5701", "tandem.transport-port", "7800",
            "tandem.ackTimeout", "500ms", "tandem.jvm-route", " n1 ", "tandem.enabled", "true")));

    assertThat(properties.attributes()).containsOnly(
        Map.entry("sharedSecretFile", "/run/secrets/tandem"),
        Map.entry("membershipPort", "5701"),
        Map.entry("members", "10.0.0.1:5701,10.0.0.2:5701"),
        Map.entry("transportPort", "7800"),
        Map.entry("ackTimeout", "500ms"));
    assertThat(properties.jvmRoute()).contains("n1");
  }

  @Test
  void bind_sameSettingInTwoSources_environmentWins() {
    TandemProperties properties = TandemProperties.bind(environment(
        Map.of("TANDEM_SCOPE", "SESSION"), Map.of("tandem.scope", "MODIFIED_ATTRIBUTE")));

    assertThat(properties.attributes()).containsExactly(Map.entry("scope", "SESSION"));
  }

  @Test
  void bind_keyNamingNoAttribute_isHandedOverForTheManagerToRefuse() {
    TandemProperties properties = TandemProperties.bind(environment(Map.of(), Map.of("tandem.ack-timeuot", "5s")));

    assertThat(properties.attributes()).containsExactly(Map.entry("ackTimeuot", "5s"));
    assertThat(TandemManager.attributeNames()).doesNotContain("ackTimeuot");
  }

  @Test
  void toString_masksTheSecretAndPasswords() {
    TandemProperties properties = new TandemProperties(
        Map.of("sharedSecret", "0123456789abcdef", "tlsKeystorePassword", "changeit", "scope", "SESSION"),
        java.util.Optional.empty());

    assertThat(properties.toString()).doesNotContain("0123456789abcdef", "changeit").contains("scope=SESSION");
  }

  @Test
  void kebab_ofEveryManagerAttribute_bindsBackToIt() {
    for (String name : TandemManager.attributeNames()) {
      TandemProperties properties = TandemProperties.bind(
          environment(Map.of(), Map.of("tandem." + TandemProperties.kebab(name), "x")));

      assertThat(properties.attributes()).as(name).containsExactly(Map.entry(name, "x"));
    }
  }
}
