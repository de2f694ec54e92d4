package io.tandem.drill;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class AppResponseTest {

  @Test
  void parsesAWriteAcknowledgement() {
    AppResponse ok = AppResponse.parse("ok prev=41 node=n2 user=user3");

    assertThat(ok.kind()).isEqualTo(AppResponse.Kind.OK);
    assertThat(ok.previousSeq()).isEqualTo(41);
    assertThat(ok.node()).isEqualTo("n2");
    assertThat(ok.user()).isEqualTo("user3");
  }

  @Test
  void parsesASessionListing() {
    AppResponse session = AppResponse.parse("session node=n1 user=null {k0=u1-g0-0, seq=7}");

    assertThat(session.kind()).isEqualTo(AppResponse.Kind.SESSION);
    assertThat(session.attributes()).containsEntry("k0", "u1-g0-0").containsEntry("seq", "7");
  }

  @Test
  void parsesThePoisonPagesPrincipal() {
    AppResponse session = AppResponse.parse("session node=n2 user=user1 principal=DrillPrincipal:user1/badge-user1 {p0=Note/u1-0, seq=3}");

    assertThat(session.principal()).isEqualTo("DrillPrincipal:user1/badge-user1");
    assertThat(session.attributes()).containsEntry("p0", "Note/u1-0");
    assertThat(AppResponse.parse("ok prev=2 node=n1 user=null").principal()).isEmpty();
  }

  @Test
  void recognisesTheLoginPageAndOtherPages() {
    assertThat(AppResponse.parse("<form method=\"post\" action=\"j_security_check\">").kind()).isEqualTo(AppResponse.Kind.LOGIN_PAGE);
    assertThat(AppResponse.parse("<html>Internal error</html>").kind()).isEqualTo(AppResponse.Kind.NONE);
    assertThat(AppResponse.parse("no-session node=n3 user=null").kind()).isEqualTo(AppResponse.Kind.NO_SESSION);
  }

  @Test
  void gatewayTimeoutRetryLaterAndNotReplicatedAreUnknown_refusedAndNotSentAreFailed() {
    assertThat(new Answer(Answer.Delivery.ANSWERED, 504, "", null, null).writeOutcome()).isEqualTo(Outcome.UNKNOWN);
    assertThat(new Answer(Answer.Delivery.ANSWERED, 503, "Tandem: retry", null, null).writeOutcome()).isEqualTo(Outcome.UNKNOWN);
    assertThat(new Answer(Answer.Delivery.ANSWERED, 500, "not replicated", null, null).writeOutcome()).isEqualTo(Outcome.UNKNOWN);
    assertThat(new Answer(Answer.Delivery.ANSWERED, 400, "refused class", null, null).writeOutcome()).isEqualTo(Outcome.FAILED);
    assertThat(new Answer(Answer.Delivery.ANSWERED, 200, "ok prev=-1 node=n1 user=null", null, null).writeOutcome()).isEqualTo(Outcome.OK);
    assertThat(Answer.notSent("not sent: connection refused").writeOutcome()).isEqualTo(Outcome.FAILED);
  }
}
