package io.tandem.transport.grizzly;

import io.tandem.core.wire.MessageType;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The acceptor's side of a Tandem node of protocol version 4, as far as a handshake goes, written from version 4's
 * code and not with this code's encoder: a frame framed as anything but version 4 is a bad frame, and the connection
 * closes without a word (version 4's decoder threw, and its handshake refused the peer as a protocol violation); a
 * version-4 hello is answered with version 4's challenge. One connection at a time, on its own thread.
 */
final class Version4Acceptor implements AutoCloseable {
  private final ServerSocket server;
  private final String cluster;
  private final String node;
  private final Thread thread;
  /** Connections closed unanswered, as version 4 refused a version-5 hello. */
  final AtomicInteger closedUnanswered = new AtomicInteger();
  /** Version-4 hellos answered with a challenge. */
  final AtomicInteger challenged = new AtomicInteger();

  Version4Acceptor(String cluster, String node) throws IOException {
    this.server = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
    this.cluster = cluster;
    this.node = node;
    this.thread = new Thread(this::serve, "version-4-acceptor");
    thread.setDaemon(true);
    thread.start();
  }

  String address() {
    return "127.0.0.1:" + server.getLocalPort();
  }

  /** A version-4 hello (or, with a proof, a challenge), byte by byte as version 4's MessageCodec wrote it. */
  static byte[] hello(String cluster, String node, byte[] nonce, byte[] proof) {
    byte[] c = cluster.getBytes(StandardCharsets.UTF_8);
    byte[] n = node.getBytes(StandardCharsets.UTF_8);
    int payload = 4 + 4 + c.length + 4 + n.length + 4 + nonce.length + 4 + proof.length;
    ByteBuffer frame = ByteBuffer.allocate(4 + 11 + payload);
    frame.putInt(11 + payload).put((byte) 4).put((byte) MessageType.HANDSHAKE.code()).put((byte) 0).putLong(0);
    frame.putInt(4).putInt(c.length).put(c).putInt(n.length).put(n).putInt(nonce.length).put(nonce).putInt(proof.length).put(proof);
    return frame.array();
  }

  private void serve() {
    while (!server.isClosed()) {
      try (Socket socket = server.accept()) {
        socket.setSoTimeout(5000);
        DataInputStream in = new DataInputStream(socket.getInputStream());
        int length = in.readInt();
        byte[] frame = new byte[length];
        in.readFully(frame);
        if (frame[0] != 4 || frame[1] != MessageType.HANDSHAKE.code()) {
          closedUnanswered.incrementAndGet();
          continue;
        }
        challenged.incrementAndGet();
        socket.getOutputStream().write(hello(cluster, node, new byte[16], new byte[32]));
        socket.getOutputStream().flush();
        in.read(); // waits for the prober to hang up, as version 4 waited for the proof
      } catch (IOException e) {
        // closed, or the prober hung up
      }
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
    try {
      thread.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
