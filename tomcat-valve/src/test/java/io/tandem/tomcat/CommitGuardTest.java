package io.tandem.tomcat;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.catalina.connector.Response;
import org.apache.coyote.ActionCode;
import org.apache.coyote.OutputBuffer;
import org.apache.coyote.Request;
import org.apache.juli.logging.LogFactory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The guard on Tomcat's own response objects, with a recording processor and connector output in place of the
 * socket's: what it lets through, and that a guard a response left behind never touches the next request's.
 */
class CommitGuardTest {
  private final org.apache.coyote.Response coyote = new org.apache.coyote.Response();
  private final Request coyoteRequest = new Request();
  private final Response response = new Response();
  private final List<ActionCode> processed = new ArrayList<>();
  private final ByteArrayOutputStream sent = new ByteArrayOutputStream();
  private Verdict verdict = Verdict.OK;

  @BeforeEach
  void connector() {
    coyote.setRequest(coyoteRequest);
    coyoteRequest.markStartTime();
    response.setCoyoteResponse(coyote);
    CoyoteAccess.replaceHook(coyote, null, (code, param) -> {
      processed.add(code);
      if (code == ActionCode.COMMIT) {
        coyote.setCommitted(true);
      }
    });
    coyote.setOutputBuffer(new OutputBuffer() {
      @Override
      public int doWrite(ByteBuffer chunk) {
        int length = chunk.remaining();
        byte[] bytes = new byte[length];
        chunk.get(bytes);
        sent.writeBytes(bytes);
        return length;
      }

      @Override
      public long getBytesWritten() {
        return sent.size();
      }
    });
  }

  private CommitGuard install() {
    return CommitGuard.install(response, () -> verdict, new ResponseCounters(), LogFactory.getLog(CommitGuardTest.class));
  }

  @Test
  void lastByteOfADeclaredLength_isHeldUntilTheRequestEnds() throws Exception {
    CommitGuard guard = install();
    coyote.setContentLength(4);

    coyote.doWrite(ByteBuffer.wrap("abcd".getBytes()));

    assertThat(sent.toString()).isEqualTo("abc");
    assertThat(guard.requestEnded(Verdict.OK)).isTrue();
    assertThat(sent.toString()).isEqualTo("abcd");
  }

  @Test
  void failureAfterTheCommit_abortsTheResponse_andDropsTheHeldByte() throws Exception {
    CommitGuard guard = install();
    coyote.setContentLength(4);
    coyote.doWrite(ByteBuffer.wrap("abcd".getBytes()));

    guard.requestEnded(Verdict.notReplicable("a value"));

    assertThat(sent.toString()).isEqualTo("abc");
    assertThat(processed).contains(ActionCode.CLOSE_NOW);
  }

  @Test
  void failureAtTheCommit_answersTandemsErrorInsteadOfThePage() throws Exception {
    install();
    verdict = Verdict.notReplicable("session attribute [cart] cannot be replicated");

    coyote.doWrite(ByteBuffer.wrap("<html>the application's page".getBytes()));

    assertThat(coyote.getStatus()).isEqualTo(500);
    assertThat(sent.toString()).isEqualTo("Tandem: session attribute [cart] cannot be replicated");
  }

  /**
   * A guard its response left behind (Tomcat finished it without the close that steps the guard aside, as after an
   * I/O error) sees the next request's start on the reused objects and lets it through whole, even when that
   * request's body reaches the connector before any action does (a body larger than the buffer, from a context or a
   * request Tandem does not guard).
   */
  @Test
  void guardLeftBehind_letsTheNextRequestsBodyThrough() throws Exception {
    install();
    verdict = Verdict.notReplicable("a value");
    coyote.doWrite(ByteBuffer.wrap("dropped".getBytes()));
    sent.reset();
    coyote.recycle();
    coyoteRequest.recycle();
    coyote.setRequest(coyoteRequest);
    coyoteRequest.markStartTime(); // the next request, which no guard was installed for

    coyote.setContentLength(5);
    coyote.doWrite(ByteBuffer.wrap("whole".getBytes()));

    assertThat(sent.toString()).isEqualTo("whole");
  }
}
