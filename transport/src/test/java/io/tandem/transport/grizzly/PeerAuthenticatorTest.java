package io.tandem.transport.grizzly;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.core.session.Blob;
import io.tandem.core.spi.NodeId;
import io.tandem.core.wire.ProtocolVersions;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class PeerAuthenticatorTest {
  private static final ProtocolVersions FIVE_TO_SIX = new ProtocolVersions(5, 6);
  private static final ProtocolVersions FIVE = new ProtocolVersions(5, 5);
  private final PeerAuthenticator authenticator =
      new PeerAuthenticator("the-right-shared-secret".getBytes(StandardCharsets.UTF_8), "cluster");
  private final Blob verifierNonce = authenticator.newNonce();
  private final Blob proverNonce = authenticator.newNonce();
  private final NodeId prover = new NodeId("b");

  @Test
  void verify_theRangesTheProofWasMadeOver_succeeds() {
    Blob proof = authenticator.proof(verifierNonce, proverNonce, prover, FIVE_TO_SIX, FIVE_TO_SIX);

    assertThat(authenticator.verify(proof, verifierNonce, proverNonce, prover, FIVE_TO_SIX, FIVE_TO_SIX)).isTrue();
  }

  /** A hello whose range was lowered on the way, to make both ends settle on an older version, fails the proof. */
  @Test
  void verify_aRangeAlteredOnTheWay_fails() {
    Blob proof = authenticator.proof(verifierNonce, proverNonce, prover, FIVE, FIVE_TO_SIX);

    assertThat(authenticator.verify(proof, verifierNonce, proverNonce, prover, FIVE_TO_SIX, FIVE_TO_SIX)).isFalse();
    assertThat(authenticator.verify(proof, verifierNonce, proverNonce, prover, FIVE_TO_SIX, FIVE)).isFalse();
  }
}
