package io.tandem.transport.grizzly;

import io.tandem.core.session.Blob;
import io.tandem.core.spi.NodeId;
import io.tandem.core.wire.ProtocolVersions;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The challenge both ends of a connection answer: each sends a fresh nonce, and each proves it holds the cluster's
 * shared secret with an HMAC-SHA256 over the other's nonce, its own nonce, the cluster name, its own node id and the
 * version ranges of both hellos (the dialer's, then the acceptor's). The secret never crosses the wire, a proof cannot
 * be replayed on another connection, and a hello whose range was altered on the way (to make both ends settle on an
 * older version than they share) fails the proof.
 */
final class PeerAuthenticator {
  private static final String ALGORITHM = "HmacSHA256";
  private final SecretKeySpec key;
  private final String clusterName;
  private final SecureRandom random = new SecureRandom();

  PeerAuthenticator(byte[] secret, String clusterName) {
    this.key = new SecretKeySpec(secret, ALGORITHM);
    this.clusterName = clusterName;
  }

  Blob newNonce() {
    byte[] nonce = new byte[16];
    random.nextBytes(nonce);
    return Blob.wrap(nonce);
  }

  /**
   * What {@code prover} sends to show it knows the secret, answering {@code verifierNonce}, on a connection whose
   * dialer said it speaks {@code dialer} and whose acceptor said {@code acceptor}.
   */
  Blob proof(Blob verifierNonce, Blob proverNonce, NodeId prover, ProtocolVersions dialer, ProtocolVersions acceptor) {
    try {
      Mac mac = Mac.getInstance(ALGORITHM);
      mac.init(key);
      mac.update(verifierNonce.bytes());
      mac.update(proverNonce.bytes());
      mac.update(clusterName.getBytes(StandardCharsets.UTF_8));
      mac.update((byte) 0);
      mac.update(prover.value().getBytes(StandardCharsets.UTF_8));
      mac.update(new byte[] {0, (byte) dialer.lowest(), (byte) dialer.highest(), (byte) acceptor.lowest(), (byte) acceptor.highest()});
      return Blob.wrap(mac.doFinal());
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is unavailable", e);
    }
  }

  boolean verify(Blob proof, Blob verifierNonce, Blob proverNonce, NodeId prover, ProtocolVersions dialer,
      ProtocolVersions acceptor) {
    return MessageDigest.isEqual(proof.bytes(), proof(verifierNonce, proverNonce, prover, dialer, acceptor).bytes());
  }
}
