package io.tandem.transport.grizzly;

import java.net.SocketAddress;
import java.nio.ByteBuffer;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.EmptyCompletionHandler;
import org.glassfish.grizzly.WriteResult;
import org.glassfish.grizzly.memory.Buffers;
import org.glassfish.grizzly.nio.NIOConnection;
import org.glassfish.grizzly.nio.SelectorRunner;
import org.glassfish.grizzly.nio.transport.TCPNIOTransport;

/**
 * An {@link OutboundQueue}'s way to a Grizzly connection: flushes run as tasks of the connection's selector thread
 * (Grizzly runs a task its own thread enqueues before it next blocks in select, so the replies of a read leave right
 * after it), and a batch is one non-blocking write through the filter chain (TLS included).
 */
final class SelectorThreadSink implements OutboundQueue.Sink {
  private final Connection<SocketAddress> connection;
  private final TCPNIOTransport grizzly;

  @SuppressWarnings("unchecked")
  SelectorThreadSink(Connection<?> connection, TCPNIOTransport grizzly) {
    this.connection = (Connection<SocketAddress>) connection;
    this.grizzly = grizzly;
  }

  @Override
  public void schedule(Runnable flush) {
    SelectorRunner runner = ((NIOConnection) connection).getSelectorRunner();
    if (runner == null) {
      flush.run(); // not registered with a selector (yet, or any more); OutboundQueue keeps flushes apart
      return;
    }
    grizzly.getSelectorHandler().enque(runner, () -> {
      flush.run();
      return true;
    }, null);
  }

  @Override
  public void write(ByteBuffer batch, Runnable written) {
    connection.write(Buffers.wrap(grizzly.getMemoryManager(), batch), new EmptyCompletionHandler<WriteResult<Buffer, SocketAddress>>() {
      @Override
      public void completed(WriteResult<Buffer, SocketAddress> result) {
        written.run();
      }

      @Override
      public void failed(Throwable error) {
        written.run();
        connection.closeSilently();
      }
    });
  }
}
