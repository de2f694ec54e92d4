package io.tandem.benchmarks.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class PageScriptTest {

  private final PageScript script = new PageScript(7, new Target("127.0.0.1", 8080, "/app/page"), 3, 1024);

  @Test
  void request_firstPage_hasNoCookieAndNamesThePage() {
    assertThat(text(script.request())).isEqualTo(
        "GET /app/page?user=7&page=1&name=a1&size=1024 HTTP/1.1\r\n"
            + "Host: 127.0.0.1:8080\r\n"
            + "Connection: keep-alive\r\n"
            + "User-Agent: tandem-load\r\n\r\n");
  }

  @Test
  void responded_keepsTheCookieForKPages_thenStartsANewSession() {
    assertThat(script.responded("S1.n1")).isTrue();
    assertThat(text(script.request())).contains("page=2&name=a2").contains("Cookie: JSESSIONID=S1.n1\r\n");
    assertThat(script.responded(null)).isFalse();
    assertThat(script.page()).isEqualTo(3);
    assertThat(script.sessionCookie()).isEqualTo("S1.n1");
    assertThat(script.responded("S1.n1")).isFalse();

    assertThat(script.page()).isEqualTo(1);
    assertThat(script.sessionCookie()).isNull();
    assertThat(text(script.request())).doesNotContain("Cookie");
  }

  @Test
  void failed_movesOnLikeAResponse() {
    script.responded("S1.n1");
    script.failed();
    script.failed();

    assertThat(script.page()).isEqualTo(1);
    assertThat(script.sessionCookie()).isNull();
  }

  @Test
  void responded_aChangedCookie_countsAsANewSession() {
    script.responded("S1.n1");

    assertThat(script.responded("S2.n2")).isTrue();
    assertThat(script.sessionCookie()).isEqualTo("S2.n2");
  }

  private static String text(ByteBuffer buffer) {
    return StandardCharsets.ISO_8859_1.decode(buffer).toString();
  }
}
