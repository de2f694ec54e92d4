package io.tandem.transport.grizzly;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.HashMap;
import java.util.Map;

/**
 * Admission of accepted connections that have not yet proven the secret: at most {@code maxTotal} at once, and at
 * most {@code maxPerAddress} from one source IP, so that a peer opening connections and saying nothing cannot
 * exhaust this node's sockets or memory. A connection holds its slot from accept until it authenticates or closes.
 *
 * <p>Implementation notes: {@code perAddress} and {@code total} are guarded by this object's lock, held only for
 * the arithmetic. Each connection releases at most once ({@link PeerConnection#releaseUnauthenticatedSlot}).
 */
final class UnauthenticatedConnections {
  private final int maxTotal;
  private final int maxPerAddress;

  @GuardedBy("this")
  private final Map<String, Integer> perAddress = new HashMap<>();

  @GuardedBy("this")
  private int total;

  UnauthenticatedConnections(int maxTotal, int maxPerAddress) {
    this.maxTotal = maxTotal;
    this.maxPerAddress = maxPerAddress;
  }

  /** Takes a slot for a connection from {@code ip}; false when either limit is reached. */
  synchronized boolean admit(String ip) {
    int fromIp = perAddress.getOrDefault(ip, 0);
    if (total >= maxTotal || fromIp >= maxPerAddress) {
      return false;
    }
    total++;
    perAddress.put(ip, fromIp + 1);
    return true;
  }

  synchronized void release(String ip) {
    total--;
    int left = perAddress.getOrDefault(ip, 1) - 1;
    if (left <= 0) {
      perAddress.remove(ip); // the map holds only addresses with a connection in its handshake: bounded by maxTotal
    } else {
      perAddress.put(ip, left);
    }
  }

  synchronized int count() {
    return total;
  }
}
