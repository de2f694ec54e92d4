package io.tandem.core.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.core.session.Blob;
import io.tandem.core.spi.NodeId;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Issue 28: a hello of another version must reach the handshake, which refuses it by name. Version 4's decoder
 * refused a version-5 frame as unreadable before its handshake saw it, and the prober on the other side took the
 * closed connection for an unreachable member.
 */
class HelloFramingTest {
  private static final int MAX = 64 * 1024;
  private static final NodeId NODE = new NodeId("old-node");

  /** A version-4 hello, byte by byte as version 4's MessageCodec wrote it (not with this code's encoder). */
  static byte[] version4Hello(String cluster, String node, byte[] nonce) {
    byte[] c = cluster.getBytes(StandardCharsets.UTF_8);
    byte[] n = node.getBytes(StandardCharsets.UTF_8);
    int payload = 4 + 4 + c.length + 4 + n.length + 4 + nonce.length + 4;
    ByteBuffer frame = ByteBuffer.allocate(4 + 11 + payload);
    frame.putInt(11 + payload).put((byte) 4).put((byte) MessageType.HANDSHAKE.code()).put((byte) 0).putLong(0);
    frame.putInt(4).putInt(c.length).put(c).putInt(n.length).put(n).putInt(nonce.length).put(nonce).putInt(0);
    return frame.array();
  }

  private static Envelope decodeOne(byte[] frame, int connectionSpeaks) {
    FrameDecoder decoder = new FrameDecoder(MAX);
    decoder.protocolVersion(connectionSpeaks);
    decoder.feed(ByteBuffer.wrap(frame));
    return decoder.next();
  }

  @Test
  void next_aVersion4Hello_decodesAsAHelloSpeakingVersion4Alone() {
    Envelope hello = decodeOne(version4Hello("shop", "old-node", new byte[16]), MessageCodec.PROTOCOL_VERSION);

    assertThat(hello.message()).isEqualTo(new Message.Handshake(ProtocolVersions.only(4), "shop", NODE, Blob.wrap(new byte[16]), Blob.EMPTY));
  }

  @Test
  void encodeLegacyHello_writesWhatVersion4Wrote() {
    byte[] nonce = new byte[16];
    nonce[3] = 7;

    assertThat(MessageCodec.encodeLegacyHello(4, "shop", NODE, Blob.wrap(nonce))).isEqualTo(version4Hello("shop", "old-node", nonce));
  }

  @Test
  void next_aHelloOfAnyRange_isReadWhateverVersionTheConnectionSpeaks() {
    Message.Handshake later = new Message.Handshake(new ProtocolVersions(9, 12), "shop", NODE, Blob.EMPTY, Blob.EMPTY);
    byte[] frame = MessageCodec.encodeToBytes(new Envelope(0, false, later), 12);

    assertThat(frame[4]).as("a hello is framed as HELLO_FRAMING whatever the version").isEqualTo((byte) MessageCodec.HELLO_FRAMING);
    assertThat(decodeOne(frame, 5).message()).isEqualTo(later);
    assertThat(decodeOne(frame, 7).message()).isEqualTo(later);
  }

  @Test
  void next_aHelloFramedAboveHelloFraming_isStillReadAsAHello() {
    Message.Handshake hello = new Message.Handshake(new ProtocolVersions(6, 7), "shop", NODE, Blob.EMPTY, Blob.EMPTY);
    byte[] frame = MessageCodec.encodeToBytes(new Envelope(0, false, hello));
    frame[4] = 7;

    assertThat(decodeOne(frame, 5).message()).isEqualTo(hello);
  }

  @Test
  void next_aFrameOfAnotherVersionThanTheConnections_isSkippedNamingBoth() {
    byte[] at6 = MessageCodec.encodeToBytes(new Envelope(3, false, new Message.Locate("s")), 6);
    byte[] at5 = MessageCodec.encodeToBytes(new Envelope(4, false, new Message.Locate("t")), 5);
    FrameDecoder decoder = new FrameDecoder(MAX);
    decoder.protocolVersion(5);
    decoder.feed(ByteBuffer.wrap(at6));
    decoder.feed(ByteBuffer.wrap(at5));

    assertThatThrownBy(decoder::next).isInstanceOfSatisfying(UnsupportedProtocolVersionException.class, e -> {
      assertThat(e.version()).isEqualTo(6);
      assertThat(e.correlationId()).isEqualTo(3);
    }).hasMessage("a frame of protocol version 6 on a connection that speaks version 5");
    assertThat(decoder.next()).isEqualTo(new Envelope(4, false, new Message.Locate("t")));
  }

  @Test
  void protocolVersion_setToTheNegotiatedOne_acceptsThatVersionsFramesFromTheNextFrameOn() {
    byte[] at6 = MessageCodec.encodeToBytes(new Envelope(3, false, new Message.Locate("s")), 6);

    assertThat(decodeOne(at6, 6)).isEqualTo(new Envelope(3, false, new Message.Locate("s")));
  }
}
