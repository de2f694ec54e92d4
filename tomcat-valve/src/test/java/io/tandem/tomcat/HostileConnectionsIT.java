package io.tandem.tomcat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Unauthenticated connections to a node's replication port, on real embedded Tomcats: each declares a 32 MiB frame
 * and sends no more. The node keeps answering HTTP and replicating to its buddy, and they cost it almost no heap
 * (issue "Hostile network": seven such connections used to end a 256 MiB JVM).
 */
class HostileConnectionsIT extends TomcatClusterIT {
  private static final int CONNECTIONS = 100;

  @Test
  void hundredConnectionsDeclaring32MiBFrames_costUnder10MiB_andTheNodeServesAndReplicates() throws Exception {
    start(2, "MODIFIED_ATTRIBUTE");
    TomcatNode n1 = cluster.node(0);
    TomcatNode n2 = cluster.node(1);
    cluster.get(n1, "/set?name=user&value=before");
    String base = TandemManager.stripRoute(cluster.sessionCookie());
    await().atMost(Duration.ofSeconds(10)).until(() -> n2.manager().engine().backupOf(base).isPresent());
    long versionBefore = n2.manager().engine().backupOf(base).orElseThrow().version();
    int transportPort = Integer.parseInt(n1.manager().getProperty("transportPort"));
    long before = heapAfterGc();

    List<Socket> hostile = new ArrayList<>();
    try {
      for (int i = 0; i < CONNECTIONS; i++) {
        Socket socket = new Socket();
        try {
          socket.connect(new InetSocketAddress("127.0.0.1", transportPort), 2_000);
          OutputStream out = socket.getOutputStream();
          out.write(ByteBuffer.allocate(8).putInt(32 << 20).putInt(0).array()); // a length prefix, then nothing
          out.flush();
        } catch (java.io.IOException refusedOrClosed) {
          // the node may refuse connections past its cap: that is the point
        }
        hostile.add(socket);
      }
      long grown = heapAfterGc() - before;

      assertThat(grown).as("heap growth with %d hostile connections open", CONNECTIONS).isLessThan(10L << 20);
      assertThat(cluster.get(n1, "/set?name=user&value=after")).startsWith("ok ");
      assertThat(n2.manager().engine().backupOf(base).orElseThrow().version())
          .as("the buddy acknowledged the write (SYNC), so it holds a newer version").isGreaterThan(versionBefore);
      assertThat(cluster.get(n1, "/get?name=user")).isEqualTo("after");
    } finally {
      for (Socket socket : hostile) {
        socket.close();
      }
    }
  }

  private static long heapAfterGc() throws InterruptedException {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    long least = Long.MAX_VALUE;
    for (int i = 0; i < 3; i++) { // the least of a few readings: GC is a request, and other threads allocate
      System.gc();
      Thread.sleep(100);
      least = Math.min(least, memory.getHeapMemoryUsage().getUsed());
    }
    return least;
  }
}
