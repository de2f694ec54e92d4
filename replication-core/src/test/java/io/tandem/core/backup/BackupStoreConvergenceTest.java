package io.tandem.core.backup;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.core.session.Blob;
import io.tandem.core.session.SessionMetadata;
import io.tandem.core.session.SessionSnapshot;
import io.tandem.core.spi.NodeId;
import io.tandem.core.testing.ManualClock;
import io.tandem.core.wire.Message;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * Against a reference model: the owner makes random changes and sends each as a delta; the network reorders and
 * drops them; every gap makes the owner resend the full session. Once the owner's last message has been applied,
 * the backup equals the owner's state.
 */
class BackupStoreConvergenceTest {
  private static final NodeId OWNER = new NodeId("owner");

  @Property(tries = 200)
  void randomDeltasInRandomOrder_withGapResends_convergeToTheOwnersState(
      @ForAll long seed, @ForAll @IntRange(min = 1, max = 40) int changes) {
    Random random = new Random(seed);
    BackupStore store = new BackupStore(new ManualClock(Instant.EPOCH), Duration.ofMinutes(1));
    SessionMetadata metadata = SessionMetadata.created(0, 60);
    Map<String, Blob> owner = new HashMap<>();
    store.applyFull(OWNER, new SessionSnapshot("s", 1, 0, metadata, owner));

    List<Message.SessionDelta> inFlight = new ArrayList<>();
    for (int v = 1; v <= changes; v++) {
      Map<String, Blob> set = new HashMap<>();
      Set<String> removed = new HashSet<>();
      String name = "a" + random.nextInt(5);
      if (random.nextInt(4) == 0) {
        owner.remove(name);
        removed.add(name);
      } else {
        Blob value = Blob.wrap(new byte[] {(byte) v});
        owner.put(name, value);
        set.put(name, value);
      }
      inFlight.add(new Message.SessionDelta("s", 1, v - 1, v, null, set, removed));
    }
    Collections.shuffle(inFlight, random);
    boolean gap = false;
    for (Message.SessionDelta delta : inFlight) {
      if (random.nextInt(10) == 0) {
        continue; // lost
      }
      Message reply = store.applyDelta(OWNER, delta);
      gap |= reply instanceof Message.Nack nack && nack.reason() == Message.Nack.Reason.GAP;
    }
    SessionSnapshot held = store.entry("s").orElseThrow().snapshot();
    if (gap || held.version() != changes) {
      store.applyFull(OWNER, new SessionSnapshot("s", 1, changes, metadata, owner));
    }

    held = store.entry("s").orElseThrow().snapshot();
    assertThat(held.version()).isEqualTo(changes);
    assertThat(held.attributes()).isEqualTo(owner);
  }
}
