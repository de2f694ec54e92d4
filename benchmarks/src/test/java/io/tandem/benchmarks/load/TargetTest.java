package io.tandem.benchmarks.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import org.junit.jupiter.api.Test;

class TargetTest {

  @Test
  void parse_hostPortPath() {
    Target target = Target.parse("127.0.0.1:8081/bench/page");

    assertThat(target).isEqualTo(new Target("127.0.0.1", 8081, "/bench/page"));
    assertThat(target.authority()).isEqualTo("127.0.0.1:8081");
  }

  @Test
  void parse_ipv6Literal_isBracketedInTheAuthorityOnly() {
    Target target = Target.parse("[::1]:8081/p");

    assertThat(target.host()).isEqualTo("::1");
    assertThat(target.authority()).isEqualTo("[::1]:8081");
  }

  @Test
  void parse_missingPortAndPath_namesBoth() {
    InvalidConfigException e = catchThrowableOfType(InvalidConfigException.class,
        () -> Target.parse("localhost:http"));

    assertThat(e.violations()).containsExactly("port = -1 (must be between 1 and 65535)",
        "path =  (must be an absolute path starting with '/', without query, fragment, spaces or control characters)");
  }

  @Test
  void constructor_queryInPathOrSpaceInHost_isRefused() {
    InvalidConfigException e = catchThrowableOfType(InvalidConfigException.class,
        () -> new Target("a b", 80, "/p?x=1"));

    assertThat(e.violations()).hasSize(2);
    assertThat(e.violations().get(0)).startsWith("host = a b");
    assertThat(e.violations().get(1)).startsWith("path = /p?x=1");
  }
}
