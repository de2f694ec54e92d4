package io.tandem.transport.grizzly;

import io.tandem.core.session.Blob;
import io.tandem.core.spi.Member;
import io.tandem.core.spi.NodeId;
import io.tandem.core.wire.Envelope;
import io.tandem.core.wire.FrameDecoder;
import io.tandem.core.wire.Message;
import io.tandem.core.wire.MessageCodec;
import io.tandem.core.wire.ProtocolVersions;
import io.tandem.core.wire.WireException;
import io.tandem.transport.membership.ProbeOutcome;
import io.tandem.transport.membership.ProbeOutcome.Refusal;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import javax.net.ssl.SSLSocket;

/**
 * The dialer's half of the handshake, on a short-lived blocking socket: send a hello, check that the acceptor's
 * challenge proves the shared secret for the node id the member advertised, and hang up. The acceptor proves
 * first, so the verdict needs nothing from the acceptor beyond its challenge, and either end of a pair can probe
 * the other whatever their order. The acceptor sees a handshake abandoned after its challenge, which it neither
 * counts nor logs.
 *
 * <p>Versions: the hello offers this node's range, and an acceptor that shares no version answers with its own hello
 * before it closes, so the verdict names both ranges. A member of version 4 cannot read that hello and closes without
 * a word; so when a member closes before answering at all, a second probe greets it as version 4 did ({@link
 * MessageCodec#encodeLegacyHello}), and a version-4 answer refuses it by name. Without that second probe a node of
 * version 5 would take every version-4 member for unreachable and start alone, holding the only copy of what it
 * acknowledged. The lie costs the member nothing: it sees a handshake abandoned after its challenge. A member of this
 * version that closed the first hello for another reason (too many connections in their handshake, another cluster)
 * refuses the second one too, and counts it (as {@code PROTOCOL_VERSION}, or {@code WRONG_CLUSTER}): one more
 * refusal on its figures for a probe that was refused anyway.
 *
 * <p>Blocking on purpose: probes are rare (a new member, then re-probes with back-off), and a plain socket keeps
 * them out of the selector threads and the connection table. Implementation notes: stateless but for its
 * collaborators; runs on the transport's probe threads.
 */
final class MemberProbe {
  private final GrizzlyTransportConfig config;
  private final PeerAuthenticator authenticator;

  MemberProbe(GrizzlyTransportConfig config, PeerAuthenticator authenticator) {
    this.config = config;
    this.authenticator = authenticator;
  }

  ProbeOutcome probe(Member member) {
    InetSocketAddress address;
    try {
      String hostPort = member.transportAddress();
      int colon = hostPort.lastIndexOf(':');
      address = new InetSocketAddress(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
    } catch (RuntimeException e) {
      return ProbeOutcome.refused(Refusal.MISBEHAVED, "advertises '" + member.transportAddress() + "', which is not host:port");
    }
    ProbeOutcome outcome = greet(member, address, false);
    if (outcome != null) {
      return outcome;
    }
    ProbeOutcome legacy = greet(member, address, true);
    if (legacy != null && legacy.status() == ProbeOutcome.Status.REFUSED && legacy.refusal() == Refusal.PROTOCOL_VERSION) {
      return legacy;
    }
    return ProbeOutcome.unreachable("closed the connection without answering its hello (another cluster, too many"
        + " connections in their handshake, or a node of protocol version 4 that did not answer version 4's hello either)");
  }

  /**
   * One handshake: with this node's hello, or ({@code asVersion4}) with the hello version 4 sent, which only finds
   * out whether the member is a version-4 node. Null when the member closed the connection without answering.
   */
  private ProbeOutcome greet(Member member, InetSocketAddress address, boolean asVersion4) {
    ProtocolVersions spoken = config.protocolVersions();
    try (Socket socket = open(address)) {
      OutputStream out = socket.getOutputStream();
      Blob nonce = authenticator.newNonce();
      NodeId local = config.localNode();
      out.write(asVersion4
          ? MessageCodec.encodeLegacyHello(ProtocolVersions.FIRST_NEGOTIATING - 1, config.clusterName(), local, nonce)
          : MessageCodec.encodeToBytes(new Envelope(0, false, new Message.Handshake(spoken, config.clusterName(), local, nonce, Blob.EMPTY))));
      out.flush();
      DataInputStream in = new DataInputStream(socket.getInputStream());
      int first;
      try {
        first = in.read();
      } catch (SocketTimeoutException e) {
        throw e;
      } catch (IOException e) {
        first = -1; // reset rather than closed: the same answer
      }
      if (first < 0) {
        return null;
      }
      Message answer = readOne(first, in);
      if (!(answer instanceof Message.Handshake challenge)) {
        return ProbeOutcome.refused(Refusal.MISBEHAVED, "answered a handshake with a " + answer.type());
      }
      if (!challenge.clusterName().equals(config.clusterName())) {
        return ProbeOutcome.refused(Refusal.WRONG_CLUSTER, "belongs to cluster '" + challenge.clusterName() + "', not '" + config.clusterName() + "'");
      }
      if (spoken.sharedHighest(challenge.versions()).isEmpty()) {
        return ProbeOutcome.refused(Refusal.PROTOCOL_VERSION, HandshakeProtocol.noVersionInCommon(spoken, challenge.versions()));
      }
      if (asVersion4) {
        // A member that speaks this node's versions answered a version-4 hello: not what the first probe's close meant.
        return ProbeOutcome.unreachable("answered a version-4 hello with a hello of versions " + challenge.versions());
      }
      if (!challenge.node().equals(member.id())) {
        return ProbeOutcome.refused(Refusal.WRONG_SECRET, "answered as " + challenge.node().value() + " at the address " + member.id().value() + " advertises");
      }
      if (!authenticator.verify(challenge.proof(), nonce, challenge.nonce(), challenge.node(), spoken, challenge.versions())) {
        return ProbeOutcome.refused(Refusal.WRONG_SECRET, "could not prove the shared secret: its sharedSecret and this node's differ");
      }
      return ProbeOutcome.authenticated();
    } catch (SocketTimeoutException e) {
      return ProbeOutcome.unreachable("no handshake answer within " + io.tandem.core.config.Units.format(config.handshakeTimeout()));
    } catch (EOFException e) {
      return ProbeOutcome.unreachable("closed the connection in the middle of its handshake answer");
    } catch (WireException e) {
      return ProbeOutcome.refused(Refusal.MISBEHAVED, "sent an unreadable handshake: " + e.getMessage());
    } catch (IOException e) {
      return ProbeOutcome.unreachable("cannot connect to " + address + ": " + e.getMessage());
    }
  }

  private Socket open(InetSocketAddress address) throws IOException {
    Socket plain = new Socket();
    try {
      plain.connect(address, (int) config.connectTimeout().toMillis());
      plain.setSoTimeout((int) config.handshakeTimeout().toMillis());
      plain.setTcpNoDelay(true);
      if (config.tls() == null) {
        return plain;
      }
      SSLSocket tls = (SSLSocket) config.tls().getSocketFactory().createSocket(plain, address.getHostString(), address.getPort(), true);
      tls.setUseClientMode(true);
      tls.startHandshake();
      return tls;
    } catch (IOException | RuntimeException e) {
      plain.close();
      throw e;
    }
  }

  /** Reads one frame whose first byte was {@code first}, refusing anything larger than a handshake before reading it. */
  private static Message readOne(int first, DataInputStream in) throws IOException {
    int length = (first << 24) | (in.readUnsignedByte() << 16) | (in.readUnsignedByte() << 8) | in.readUnsignedByte();
    if (length < 0 || (long) length + MessageCodec.LENGTH_BYTES > GrizzlyTransportConfig.HANDSHAKE_FRAME_LIMIT) {
      throw new io.tandem.core.wire.OversizedFrameException((long) length + MessageCodec.LENGTH_BYTES, GrizzlyTransportConfig.HANDSHAKE_FRAME_LIMIT);
    }
    byte[] frame = new byte[MessageCodec.LENGTH_BYTES + length];
    ByteBuffer.wrap(frame).putInt(length);
    in.readFully(frame, MessageCodec.LENGTH_BYTES, length);
    FrameDecoder decoder = new FrameDecoder(GrizzlyTransportConfig.HANDSHAKE_FRAME_LIMIT);
    decoder.feed(ByteBuffer.wrap(frame));
    Envelope envelope = decoder.next();
    if (envelope == null) {
      throw new EOFException("incomplete handshake frame");
    }
    return envelope.message();
  }
}
