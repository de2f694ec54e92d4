package io.tandem.benchmarks.codec;

import io.tandem.core.codec.ClassFilter;
import io.tandem.core.codec.CodecLimits;
import io.tandem.core.codec.KryoAttributeCodec;
import io.tandem.core.codec.KryoFieldEncoding;
import io.tandem.core.session.Blob;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The CPU cost of the {@code kryoFieldSerializer} setting: encoding and decoding one {@link SampleValues} value with
 * the Kryo codec, in the compatible encoding (field names and each field value's class in the bytes) and the fast
 * one. Bytes are measured by {@code SampleValueSizesTest}.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar KryoFieldEncoding -wi 3 -i 5 -w 1 -r 1 -f 1}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class KryoFieldEncodingBenchmark {
  @Param({"COMPATIBLE", "FAST"})
  public KryoFieldEncoding encoding;

  @Param({"profile", "cart"})
  public String value;

  private KryoAttributeCodec codec;
  private Object sample;
  private Blob bytes;
  private final ClassLoader loader = KryoFieldEncodingBenchmark.class.getClassLoader();

  @Setup
  public void setUp() {
    codec = new KryoAttributeCodec(ClassFilter.of(List.of("io.tandem.benchmarks.codec.**")), CodecLimits.defaults(),
        encoding);
    sample = SampleValues.named(value);
    bytes = codec.encode(sample);
  }

  @Benchmark
  public Blob encode() {
    return codec.encode(sample);
  }

  @Benchmark
  public Object decode() {
    return codec.decode(bytes, loader);
  }
}
