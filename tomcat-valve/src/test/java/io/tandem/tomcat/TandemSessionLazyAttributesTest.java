package io.tandem.tomcat;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.core.codec.ClassNotAllowedException;
import io.tandem.core.codec.CodecDirection;
import io.tandem.core.codec.CodecException;
import io.tandem.core.session.Blob;
import io.tandem.core.session.EncodedValue;
import io.tandem.core.session.SessionMetadata;
import jakarta.servlet.http.HttpSessionActivationListener;
import jakarta.servlet.http.HttpSessionEvent;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A session taken over decodes each attribute on its first read, once, whatever the number of readers. */
class TandemSessionLazyAttributesTest {
  private final ExecutorService readers = Executors.newFixedThreadPool(8);

  @AfterEach
  void close() {
    readers.shutdownNow();
  }

  /** Decodes "text:<s>" to a new String each time (so identity shows which decode won), counting decodes by name. */
  static final class DecodingManager extends TandemManager {
    final Map<String, AtomicInteger> decodes = new ConcurrentHashMap<>();

    @Override
    Object decodeAttribute(Blob bytes) throws CodecException {
      String text = new String(bytes.bytes(), StandardCharsets.UTF_8);
      decodes.computeIfAbsent(text, k -> new AtomicInteger()).incrementAndGet();
      if (text.equals("probe")) {
        return new Probe();
      }
      if (text.startsWith("text:")) {
        return new String(text.substring(5));
      }
      throw new ClassNotAllowedException("com.example.Gone", "not on this node's allow-list", CodecDirection.DESERIALIZING);
    }
  }

  static final class Probe implements HttpSessionActivationListener {
    final AtomicInteger activations = new AtomicInteger();

    @Override
    public void sessionDidActivate(HttpSessionEvent event) {
      activations.incrementAndGet();
    }
  }

  private static EncodedValue encoded(String text) {
    return new EncodedValue(Blob.wrap(text.getBytes(StandardCharsets.UTF_8)));
  }

  private static TandemSession takenOver(DecodingManager manager, Map<String, Object> values) {
    TandemSession session = new TandemSession(manager);
    session.restore(SessionMetadata.created(1, 1800), new HashMap<>(values), null);
    return session;
  }

  @Test
  void firstRead_decodesOnce_andEveryConcurrentReaderGetsTheSameObject() throws Exception {
    DecodingManager manager = new DecodingManager();
    TandemSession session = takenOver(manager, Map.of("user", encoded("text:ann"), "cart", encoded("text:book")));
    CountDownLatch start = new CountDownLatch(1);
    List<Future<Object>> reads = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      reads.add(readers.submit(() -> {
        start.await();
        return session.getAttribute("user");
      }));
    }
    start.countDown();
    Object first = reads.get(0).get();

    for (Future<Object> read : reads) {
      assertThat(read.get()).isEqualTo("ann").isSameAs(first);
    }
    assertThat(session.getAttribute("user")).isSameAs(first);
    assertThat(session.attribute("user")).isSameAs(first);
    assertThat(session.attribute("cart")).as("never read: still bytes").isEqualTo(encoded("text:book"));
    assertThat(manager.decodes).doesNotContainKey("text:book");
    assertThat(session.attributeNames()).isEqualTo(Set.of("user", "cart"));
  }

  @Test
  void aValueThatCannotBeDecoded_isDroppedOnce_andReadsAsAbsent() {
    DecodingManager manager = new DecodingManager();
    TandemSession session = takenOver(manager, Map.of("gone", encoded("class-not-here"), "user", encoded("text:ann")));

    assertThat(session.getAttribute("gone")).isNull();
    assertThat(session.getAttribute("gone")).isNull();

    assertThat(manager.decodes.get("class-not-here").get()).isEqualTo(1);
    assertThat(session.attributeNames()).containsExactly("user");
  }

  @Test
  void anActivationListener_isToldItActivated_whenItIsDecoded() {
    DecodingManager manager = new DecodingManager();
    TandemSession session = takenOver(manager, Map.of("probe", encoded("probe")));

    Probe probe = (Probe) session.getAttribute("probe");
    session.getAttribute("probe");

    assertThat(probe.activations.get()).isEqualTo(1);
  }
}
