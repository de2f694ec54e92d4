package io.tandem.transport.grizzly;

import io.tandem.core.session.Blob;
import io.tandem.core.spi.Member;
import io.tandem.core.spi.NodeId;
import io.tandem.core.wire.Envelope;
import io.tandem.core.wire.FrameDecoder;
import io.tandem.core.wire.Message;
import io.tandem.core.wire.MessageCodec;
import io.tandem.core.wire.WireException;
import io.tandem.transport.membership.ProbeOutcome;
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
      return ProbeOutcome.refused("advertises '" + member.transportAddress() + "', which is not host:port");
    }
    try (Socket socket = open(address)) {
      OutputStream out = socket.getOutputStream();
      Blob nonce = authenticator.newNonce();
      NodeId local = config.localNode();
      out.write(MessageCodec.encodeToBytes(new Envelope(0, false,
          new Message.Handshake(MessageCodec.PROTOCOL_VERSION, config.clusterName(), local, nonce, Blob.EMPTY))));
      out.flush();
      Message answer = readOne(new DataInputStream(socket.getInputStream()));
      if (!(answer instanceof Message.Handshake challenge)) {
        return ProbeOutcome.refused("answered a handshake with a " + answer.type());
      }
      if (challenge.protocolVersion() != MessageCodec.PROTOCOL_VERSION) {
        return ProbeOutcome.refused("speaks protocol version " + challenge.protocolVersion() + ", this node speaks " + MessageCodec.PROTOCOL_VERSION);
      }
      if (!challenge.clusterName().equals(config.clusterName())) {
        return ProbeOutcome.refused("belongs to cluster '" + challenge.clusterName() + "', not '" + config.clusterName() + "'");
      }
      if (!challenge.node().equals(member.id())) {
        return ProbeOutcome.refused("answered as " + challenge.node().value() + " at the address " + member.id().value() + " advertises");
      }
      if (!authenticator.verify(challenge.proof(), nonce, challenge.nonce(), challenge.node())) {
        return ProbeOutcome.refused("could not prove the shared secret: its sharedSecret and this node's differ");
      }
      return ProbeOutcome.authenticated();
    } catch (SocketTimeoutException e) {
      return ProbeOutcome.unreachable("no handshake answer within " + io.tandem.core.config.Units.format(config.handshakeTimeout()));
    } catch (EOFException e) {
      return ProbeOutcome.unreachable("closed the connection during the handshake (another cluster or protocol version, or too many connections)");
    } catch (WireException e) {
      return ProbeOutcome.refused("sent an unreadable handshake: " + e.getMessage());
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

  /** Reads one frame, refusing anything larger than a handshake before reading it. */
  private static Message readOne(DataInputStream in) throws IOException {
    int length = in.readInt();
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
