package io.tandem.benchmarks.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.core.codec.ClassFilter;
import io.tandem.core.codec.CodecLimits;
import io.tandem.core.codec.KryoAttributeCodec;
import io.tandem.core.codec.KryoFieldEncoding;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The bytes the {@code kryoFieldSerializer} setting costs, on the sample values (docs/tomcat.md quotes them): the
 * compatible encoding writes each class's field names once per value and the class of every field's value, and the
 * elements' classes of collections. Sizes are deterministic for a Kryo version, so they are asserted exactly.
 */
class SampleValueSizesTest {
  private static final ClassFilter SAMPLES = ClassFilter.of(List.of("io.tandem.benchmarks.codec.**"));

  @ParameterizedTest(name = "{0}: compatible {1} bytes, fast {2}")
  @CsvSource({"profile, 227, 141", "cart, 963, 780"})
  void encode_sampleValue_compatibleAgainstFast(String name, int compatible, int fast) {
    Object value = SampleValues.named(name);

    int compatibleBytes = codec(KryoFieldEncoding.COMPATIBLE).encode(value).size();
    int fastBytes = codec(KryoFieldEncoding.FAST).encode(value).size();

    System.out.printf("[sizes] %s: compatible %d bytes, fast %d bytes, +%d%%%n", name, compatibleBytes, fastBytes,
        Math.round(100.0 * (compatibleBytes - fastBytes) / fastBytes));
    assertThat(compatibleBytes).as("compatible").isEqualTo(compatible);
    assertThat(fastBytes).as("fast").isEqualTo(fast);
  }

  private static KryoAttributeCodec codec(KryoFieldEncoding encoding) {
    return new KryoAttributeCodec(SAMPLES, CodecLimits.defaults(), encoding);
  }
}
