package io.tandem.tomcat;

import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.coyote.OutputBuffer;
import org.apache.coyote.Response;

/**
 * The body's way from Tomcat's response buffer to the connector, holding back the last byte of a body whose length
 * was declared ({@code Content-Length}) until the request's changes are replicated: a client that has every declared
 * byte holds a complete response however the connection ends, so without it a body the application wrote in full
 * and flushed could not be made to fail afterwards. A chunked body needs nothing held: its end is the final chunk,
 * which the connector writes only when the response closes.
 *
 * <p>Every write first lets the {@link CommitGuard} replicate, if it is the one that commits the response, since
 * the connector commits inside its own write. After the guard answered in the application's place, the
 * application's bytes are dropped here.
 *
 * <p>Implementation notes: used by one thread at a time, as the response it belongs to (the servlet specification's
 * rule, which Tomcat's own buffers rely on too).
 */
final class HeldLastByte implements OutputBuffer {
  private final OutputBuffer connector;
  private final Response response;
  private final CommitGuard guard;
  private long passed;
  private boolean holding;
  private byte held;
  private boolean dropping;

  HeldLastByte(OutputBuffer connector, Response response, CommitGuard guard) {
    this.connector = connector;
    this.response = response;
    this.guard = guard;
  }

  OutputBuffer connector() {
    return connector;
  }

  @Override
  public int doWrite(ByteBuffer chunk) throws IOException {
    int length = chunk.remaining();
    if (!guard.guarding()) {
      return connector.doWrite(chunk);
    }
    guard.beforeBody();
    if (dropping) {
      chunk.position(chunk.limit());
      return length;
    }
    long declared = response.getContentLengthLong();
    if (declared < 0) {
      return connector.doWrite(chunk);
    }
    if (holding || passed >= declared) {
      // Past the declared length: the connector would drop these bytes too, and they must not overtake the held one.
      chunk.position(chunk.limit());
      return length;
    }
    long last = declared - 1;
    if (passed + length <= last) {
      passed += length;
      return connector.doWrite(chunk);
    }
    int before = (int) (last - passed);
    ByteBuffer head = chunk.duplicate();
    head.limit(head.position() + before);
    connector.doWrite(head);
    held = chunk.get(chunk.position() + before);
    holding = true;
    passed = declared;
    chunk.position(chunk.limit());
    return length;
  }

  /** Sends the held byte, if any: the response may now end. */
  void release() throws IOException {
    if (holding) {
      holding = false;
      connector.doWrite(ByteBuffer.wrap(new byte[] {held}));
    }
  }

  /** Drops the held byte and everything the application writes from now on. */
  void drop() {
    holding = false;
    dropping = true;
  }

  /** Writes bytes of Tandem's own (an error answered in the application's place) straight to the connector. */
  void writeOwn(byte[] bytes) throws IOException {
    connector.doWrite(ByteBuffer.wrap(bytes));
  }

  @Override
  public long getBytesWritten() {
    return connector.getBytesWritten();
  }
}
