package io.tandem.core.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Loopback ports for tests that must name a port before something binds it (Hazelcast join lists, context.xml).
 * A port from {@code new ServerSocket(0)} is not good enough: it comes from the kernel's ephemeral range, so an
 * outgoing connection can take it between the probe and the bind. Ports are chosen below that range instead, and
 * never handed out twice in one JVM.
 */
public final class FreePorts {
  private static final int FIRST_CANDIDATE = 20_000;
  private static final int DEFAULT_EPHEMERAL_START = 32_768;
  private static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
  private static final Set<Integer> GIVEN = ConcurrentHashMap.newKeySet();

  private FreePorts() {}

  public static int loopback() {
    int below = ephemeralRangeStart();
    if (below > FIRST_CANDIDATE + 1_000) {
      for (int attempt = 0; attempt < 200; attempt++) {
        int candidate = ThreadLocalRandom.current().nextInt(FIRST_CANDIDATE, below);
        if (GIVEN.add(candidate)) {
          if (probe(candidate) == candidate) {
            return candidate;
          }
        }
      }
    }
    int port = probe(0);
    GIVEN.add(port);
    return port;
  }

  private static int probe(int port) {
    try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      if (port == 0) {
        throw new UncheckedIOException(e);
      }
      return -1;
    }
  }

  private static int ephemeralRangeStart() {
    try {
      // Not Files.readString: on JDK 17 it returned only the first character of this procfs file.
      return Integer.parseInt(Files.readAllLines(EPHEMERAL_RANGE).get(0).trim().split("\\s+")[0]);
    } catch (IOException | RuntimeException e) {
      return DEFAULT_EPHEMERAL_START;
    }
  }
}
