package io.tandem.core.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.core.session.Blob;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * The Kryo codec reuses one output buffer per pooled instance: these tests prove that no blob ever shows bytes of
 * another value, and that a blob never changes after it was returned.
 */
class KryoOutputReuseTest {
  private static final ClassLoader LOADER = KryoOutputReuseTest.class.getClassLoader();

  private static KryoAttributeCodec codec() {
    return new KryoAttributeCodec(ClassFilter.defaultsOnly(), CodecLimits.defaults());
  }

  private static String text(char c, int length) {
    char[] chars = new char[length];
    Arrays.fill(chars, c);
    return new String(chars);
  }

  @Test
  void encode_smallValueAfterLargeOne_holdsOnlyItsOwnBytes() {
    KryoAttributeCodec reused = codec();
    reused.encode(text('x', 10_000)); // leaves 10 KB of 'x' in the reused buffer

    Blob small = reused.encode("ab");

    assertThat(small).isEqualTo(codec().encode("ab"));
    assertThat(small.offset()).isZero();
    assertThat(small.array()).hasSize(small.size());
    assertThat(reused.decode(small, LOADER)).isEqualTo("ab");
  }

  @Test
  void encode_laterValues_neverChangeAnEarlierBlob() {
    KryoAttributeCodec codec = codec();
    Blob first = codec.encode(List.of("first", 1));
    byte[] asReturned = first.bytes().clone();

    for (int i = 0; i < 50; i++) {
      codec.encode(text((char) ('a' + i % 26), 1 + i * 37));
    }

    assertThat(first.bytes()).isEqualTo(asReturned);
    assertThat(codec.decode(first, LOADER)).isEqualTo(List.of("first", 1));
  }

  @Test
  void encode_sameValueTwice_givesEqualBlobsInSeparateArrays() {
    KryoAttributeCodec codec = codec();

    Blob a = codec.encode(Map.of("k", "v"));
    Blob b = codec.encode(Map.of("k", "v"));

    assertThat(a).isEqualTo(b);
    assertThat(a.array()).isNotSameAs(b.array());
  }

  @Test
  void encode_valueLargerThanTheRetainedBuffer_thenSmallValues_roundTrip() {
    KryoAttributeCodec codec = codec();
    String large = text('L', 3 * KryoAttributeCodec.RETAINED_OUTPUT_BYTES);

    Blob big = codec.encode(large);
    Blob small = codec.encode(7);

    assertThat(codec.decode(big, LOADER)).isEqualTo(large);
    assertThat(codec.decode(small, LOADER)).isEqualTo(7);
    assertThat(small).isEqualTo(codec().encode(7));
  }

  @Test
  void encode_afterAFailedEncode_theNextValueIsClean() {
    KryoAttributeCodec codec = codec();
    List<Object> refused = new ArrayList<>(List.of("ok", "ok", new Thread())); // Thread is not allowed
    assertThatThrownBy(() -> codec.encode(refused)).isInstanceOf(CodecException.class);

    Blob next = codec.encode("after");

    assertThat(next).isEqualTo(codec().encode("after"));
  }

  @Test
  void encode_manyThreadsSharingTheCodec_eachBlobDecodesToItsOwnValue() throws Exception {
    KryoAttributeCodec codec = codec();
    ExecutorService threads = Executors.newFixedThreadPool(4);
    try {
      List<Future<Map<Integer, Blob>>> results = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        int thread = t;
        Callable<Map<Integer, Blob>> task = () -> {
          Map<Integer, Blob> mine = new HashMap<>();
          for (int i = 0; i < 200; i++) {
            int key = thread * 1000 + i;
            mine.put(key, codec.encode(text((char) ('a' + key % 26), key % 300)));
          }
          return mine;
        };
        results.add(threads.submit(task));
      }
      for (Future<Map<Integer, Blob>> result : results) {
        for (Map.Entry<Integer, Blob> e : result.get().entrySet()) {
          int key = e.getKey();
          assertThat(codec.decode(e.getValue(), LOADER)).isEqualTo(text((char) ('a' + key % 26), key % 300));
        }
      }
    } finally {
      threads.shutdownNow();
    }
  }
}
