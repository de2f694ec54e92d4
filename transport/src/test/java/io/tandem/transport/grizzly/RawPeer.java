package io.tandem.transport.grizzly;

import io.tandem.core.session.Blob;
import io.tandem.core.spi.NodeId;
import io.tandem.core.wire.Envelope;
import io.tandem.core.wire.FrameDecoder;
import io.tandem.core.wire.Message;
import io.tandem.core.wire.MessageCodec;
import io.tandem.core.wire.ProtocolVersions;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;

/** A blocking-socket peer that a test drives byte by byte: it can authenticate properly, then misbehave. */
final class RawPeer implements AutoCloseable {
  final Socket socket;
  final NodeId id;
  private final DataInputStream in;
  private final OutputStream out;

  RawPeer(String hostPort, NodeId id) throws IOException {
    int colon = hostPort.lastIndexOf(':');
    this.socket = new Socket();
    socket.connect(new InetSocketAddress(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1))), 5000);
    socket.setSoTimeout(5000);
    this.id = id;
    this.in = new DataInputStream(socket.getInputStream());
    this.out = socket.getOutputStream();
  }

  /** Runs the dialer's side of the handshake with {@code secret}; returns the acceptor's node id. */
  NodeId authenticate(String cluster, byte[] secret) throws IOException {
    PeerAuthenticator auth = new PeerAuthenticator(secret, cluster);
    Blob nonce = auth.newNonce();
    send(new Message.Handshake(ProtocolVersions.IMPLEMENTED, cluster, id, nonce, Blob.EMPTY));
    Message.Handshake challenge = (Message.Handshake) read().message();
    send(new Message.Handshake(ProtocolVersions.IMPLEMENTED, cluster, id, nonce, auth.proof(challenge.nonce(), nonce, id, ProtocolVersions.IMPLEMENTED, challenge.versions())));
    return challenge.node();
  }

  void send(Message message) throws IOException {
    send(new Envelope(0, false, message));
  }

  void send(Envelope envelope) throws IOException {
    out.write(MessageCodec.encodeToBytes(envelope));
    out.flush();
  }

  void sendRaw(byte[] bytes) throws IOException {
    out.write(bytes);
    out.flush();
  }

  Envelope read() throws IOException {
    int length = in.readInt();
    byte[] frame = new byte[4 + length];
    ByteBuffer.wrap(frame).putInt(length);
    in.readFully(frame, 4, length);
    FrameDecoder decoder = new FrameDecoder(64 << 20);
    decoder.feed(ByteBuffer.wrap(frame));
    return decoder.next();
  }

  /** True once the other side has closed the connection (a read returns end of stream or fails). */
  boolean isClosedByPeer() {
    try {
      return in.read() < 0;
    } catch (IOException e) {
      return true;
    }
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
