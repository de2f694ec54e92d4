package io.tandem.core.codec;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.Registration;
import com.esotericsoftware.kryo.io.KryoBufferOverflowException;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.util.DefaultClassResolver;
import com.esotericsoftware.kryo.util.Pool;
import io.tandem.core.session.Blob;
import java.io.OutputStream;
import java.util.Objects;
import java.util.Optional;

/**
 * Kryo 5 codec: several times faster and smaller than JDK serialization for typical session values.
 *
 * <p>Kryo instances are not thread-safe, so they are pooled; one is borrowed per call. Decoding treats the bytes
 * as hostile: class names are checked against the {@link ClassFilter} before loading, nesting is capped with
 * {@code Kryo#setMaxDepth}, and declared collection, array and string lengths are checked before anything is
 * allocated for them. Every failure surfaces as a {@link CodecException} (or subclass), never a raw Kryo
 * exception. An instance whose call failed is discarded rather than returned to the pool, so no half-reset
 * state leaks into the next call.
 *
 * <p>Unmodifiable/synchronized collection wrappers and {@code List.of}-style collections are written with
 * (filtered) JDK serialization inside the Kryo stream, so their elements must be {@link java.io.Serializable}.
 *
 * <p>Each pooled Kryo instance comes with its own output buffer, reused from call to call, so encoding a value
 * allocates only the returned bytes (once the buffer has grown to the size of the values written). The buffer is
 * never handed out: the blob gets a copy of exactly the bytes written, so a later value cannot show through an
 * earlier blob. A buffer that grew past {@value #RETAINED_OUTPUT_BYTES} bytes for an unusually large value is
 * replaced by a smaller one, so the pool does not hold {@code maxValueBytes} per instance for good.
 *
 * <p>Pooled Kryo instances keep their per-class registrations (serializers) between calls, which holds those
 * classes, and so their class loaders, for as long as the codec lives: create one codec per web application,
 * not one shared across redeployments.
 *
 * <p>Every value starts with one byte naming the {@link KryoFieldEncoding} it was written in; the rest is Kryo's
 * stream. The codec writes in the encoding it was made with and reads either, so nodes whose settings differ, or a
 * rolling restart that changes the setting, still read each other's values. A worker makes its Kryo instance for
 * the other encoding only when it first meets a value written in it.
 */
public final class KryoAttributeCodec implements AttributeCodec {
  /**
   * Instances kept for reuse. Request threads, not cores, borrow them: a Tomcat node on one core runs dozens of
   * requests at once (a thread preempted mid-encode keeps its instance), and a call that finds the pool empty makes
   * a new instance, which registers every class it meets again. With the old size (twice the cores, at least 4)
   * that was the owner's largest Java cost with 16 writers on one core. Idle instances hold at most {@link
   * #RETAINED_OUTPUT_BYTES} of buffer each.
   */
  static final int POOL_SIZE = 64;
  private static final int MEASURE_FACTOR = 4;
  private static final int INITIAL_OUTPUT_BYTES = 1024;
  static final int RETAINED_OUTPUT_BYTES = 64 * 1024;

  private final ClassFilter filter;
  private final CodecLimits limits;
  private final KryoFieldEncoding encoding;
  private final ClassLoader defaultLoader = KryoAttributeCodec.class.getClassLoader();
  private final Pool<Worker> pool;
  private final java.util.concurrent.atomic.LongAdder instancesCreated = new java.util.concurrent.atomic.LongAdder();

  /** A codec that writes {@link KryoFieldEncoding#COMPATIBLE}, the default. */
  public KryoAttributeCodec(ClassFilter filter, CodecLimits limits) {
    this(filter, limits, KryoFieldEncoding.COMPATIBLE);
  }

  /** A codec that writes {@code encoding} (and reads both). */
  public KryoAttributeCodec(ClassFilter filter, CodecLimits limits, KryoFieldEncoding encoding) {
    this.filter = Objects.requireNonNull(filter, "filter");
    this.limits = Objects.requireNonNull(limits, "limits");
    this.encoding = Objects.requireNonNull(encoding, "encoding");
    this.pool =
        new Pool<>(true, false, POOL_SIZE) {
          @Override
          protected Worker create() {
            return new Worker(limits.maxValueBytes());
          }
        };
  }

  /** The encoding this codec writes. */
  public KryoFieldEncoding encoding() {
    return encoding;
  }

  private GuardedKryo newKryo(KryoFieldEncoding kind) {
    instancesCreated.increment();
    GuardedKryo kryo = new GuardedKryo(filter, limits, kind);
    kryo.setClassLoader(defaultLoader);
    return kryo;
  }

  @Override
  public String name() {
    return "kryo";
  }

  @Override
  public Optional<String> refusalOf(Object value) {
    Class<?> type = value.getClass();
    return filter.refusalOf(type).map(why -> "class " + ClassFilter.refusedName(type) + " is " + why);
  }

  /**
   * {@inheritDoc}
   *
   * <p>The output buffer never grows past {@code maxValueBytes}: writing stops there. Only then is the value
   * written a second time into a counter (no buffer, at most {@value #MEASURE_FACTOR} times the limit) so that
   * the error can say how large it is.
   */
  /** Kryo instances made so far (each registers the classes it meets anew). */
  long instancesCreated() {
    return instancesCreated.sum();
  }

  @Override
  public Blob encode(Object value) {
    Objects.requireNonNull(value, "value");
    String className = value.getClass().getName();
    Worker worker = pool.obtain();
    boolean ok = false;
    try {
      Output output = worker.output;
      output.reset();
      output.writeByte(encoding.tag());
      worker.kryo(encoding).writeClassAndObject(output, value);
      byte[] bytes = output.toBytes(); // a copy of exactly the bytes written: the blob never sees the buffer
      worker.shrinkIfLarge();
      ok = true;
      return Blob.wrap(bytes);
    } catch (RuntimeException | StackOverflowError | LinkageError e) {
      if (CodecFailures.find(e, KryoBufferOverflowException.class) != null
          || CodecFailures.find(e, ValueTooLargeException.class) != null) {
        throw tooLarge(value, className);
      }
      throw translate(e, "cannot serialize " + className);
    } finally {
      release(worker, ok);
    }
  }

  @Override
  public Object decode(Blob bytes, ClassLoader loader) {
    Objects.requireNonNull(bytes, "bytes");
    if (bytes.size() > limits.maxValueBytes()) {
      throw new ValueTooLargeException(
          "value", bytes.size(), true, limits.maxValueBytes(), CodecDirection.DESERIALIZING);
    }
    KryoFieldEncoding written = bytes.size() == 0 ? null : KryoFieldEncoding.ofTag(bytes.array()[bytes.offset()]);
    if (written == null) {
      throw new CodecException(
          "cannot deserialize value: "
              + (bytes.size() == 0
                  ? "no bytes"
                  : String.format("unknown encoding tag 0x%02X (not a value of this Tandem version's kryo codec)",
                      bytes.array()[bytes.offset()] & 0xFF)));
    }
    Worker worker = pool.obtain();
    GuardedKryo kryo = worker.kryo(written);
    boolean ok = false;
    try {
      kryo.resolver().beginCall();
      kryo.setClassLoader(loader != null ? loader : defaultLoader);
      kryo.decoding(true);
      BoundedInput input = new BoundedInput(bytes.array(), bytes.offset() + 1, bytes.size() - 1);
      Object value = kryo.readClassAndObject(input);
      if (value == null) {
        throw new CodecException("cannot deserialize value: the bytes hold no value");
      }
      if (input.remaining() != 0) {
        throw new CodecException(
            "cannot deserialize "
                + value.getClass().getName()
                + ": "
                + input.remaining()
                + " unexpected trailing bytes");
      }
      ok = true;
      return value;
    } catch (RuntimeException | StackOverflowError | LinkageError e) {
      String known = kryo.resolver().lastClassName();
      throw translate(e, "cannot deserialize " + (known != null ? known : "value"));
    } finally {
      kryo.decoding(false);
      kryo.setClassLoader(defaultLoader); // never pin a webapp's loader in the pool
      release(worker, ok);
    }
  }

  @Override
  public Optional<String> className(Blob bytes) {
    Objects.requireNonNull(bytes, "bytes");
    if (bytes.size() < 2 || KryoFieldEncoding.ofTag(bytes.array()[bytes.offset()]) == null) {
      return Optional.empty();
    }
    try {
      BoundedInput input = new BoundedInput(bytes.array(), bytes.offset() + 1, bytes.size() - 1);
      int id = input.readVarInt(true); // as Kryo's class resolver writes it: 0 null, 1 a name follows, else id + 2
      if (id == Kryo.NULL) {
        return Optional.empty();
      }
      if (id == DefaultClassResolver.NAME + 2) {
        input.readVarInt(true); // the name's number within the value
        String name = input.readString();
        return name == null || name.isEmpty() ? Optional.empty() : Optional.of(name);
      }
      Worker worker = pool.obtain();
      try {
        Registration registered = worker.kryo(encoding).getRegistration(id - 2);
        return registered == null ? Optional.empty() : Optional.of(registered.getType().getName());
      } finally {
        pool.free(worker);
      }
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }

  private void release(Worker worker, boolean ok) {
    if (ok) {
      pool.free(worker);
    } else {
      worker.reset(); // drop references to the failed graph; the instance itself is not reused
    }
  }

  /**
   * A Kryo instance per encoding (made on first use) and a reusable output buffer, borrowed together.
   * Implementation notes: owned by the thread that borrowed it from the pool until it is freed; never shared.
   */
  private final class Worker {
    private final GuardedKryo[] kryos = new GuardedKryo[KryoFieldEncoding.values().length];
    private final int maxValueBytes;
    Output output;

    Worker(int maxValueBytes) {
      this.maxValueBytes = maxValueBytes;
      this.output = newOutput(INITIAL_OUTPUT_BYTES);
      kryo(encoding);
    }

    GuardedKryo kryo(KryoFieldEncoding kind) {
      GuardedKryo kryo = kryos[kind.ordinal()];
      if (kryo == null) {
        kryo = newKryo(kind);
        kryos[kind.ordinal()] = kryo;
      }
      return kryo;
    }

    void reset() {
      for (GuardedKryo kryo : kryos) {
        if (kryo != null) {
          kryo.reset();
        }
      }
    }

    /** Kryo grows the buffer up to {@code maxValueBytes}; only a moderate one is kept for the next call. */
    void shrinkIfLarge() {
      if (output.getBuffer().length > RETAINED_OUTPUT_BYTES) {
        output = newOutput(RETAINED_OUTPUT_BYTES);
      }
    }

    private Output newOutput(int initial) {
      return new Output(Math.min(initial, maxValueBytes), maxValueBytes);
    }
  }

  private CodecException translate(Throwable e, String what) {
    CodecException own = CodecFailures.find(e, CodecException.class);
    if (own != null) {
      return own;
    }
    String root = CodecFailures.rootMessage(e);
    if (root.contains("Max depth exceeded")) {
      return new CodecException(
          what + ": object graph nesting depth exceeds maxDepth " + limits.maxDepth(), e);
    }
    if (e instanceof StackOverflowError
        || CodecFailures.find(e, StackOverflowError.class) != null) {
      return new CodecException(what + ": object graph nested too deeply", e);
    }
    if (e instanceof KryoException || e instanceof RuntimeException || e instanceof LinkageError) {
      return new CodecException(what + ": " + root, e);
    }
    return new CodecException(what, e);
  }

  /** The error for an oversized value, with its size counted without buffering it (up to a cap). */
  private ValueTooLargeException tooLarge(Object value, String className) {
    CountingStream counter = new CountingStream(measureCap(limits));
    GuardedKryo kryo = new GuardedKryo(filter, limits, encoding);
    Output output = new Output(counter, 8192);
    boolean exact = false;
    try {
      output.writeByte(encoding.tag());
      kryo.writeClassAndObject(output, value);
      output.flush();
      exact = true;
    } catch (RuntimeException | StackOverflowError e) {
      // Capped or failed: report what was written, as a lower bound.
    }
    long size = exact ? counter.count : Math.max(output.total(), limits.maxValueBytes());
    return new ValueTooLargeException(
        className, size, exact, limits.maxValueBytes(), CodecDirection.SERIALIZING);
  }

  /** How far an oversized value is counted for its error message. */
  static int measureCap(CodecLimits limits) {
    return (int) Math.min(Integer.MAX_VALUE - 8L, MEASURE_FACTOR * (long) limits.maxValueBytes());
  }

  private static final class CountingStream extends OutputStream {
    private final long cap;
    long count;

    CountingStream(long cap) {
      this.cap = cap;
    }

    @Override
    public void write(int b) {
      add(1);
    }

    @Override
    public void write(byte[] b, int off, int len) {
      add(len);
    }

    private void add(int n) {
      count += n;
      if (count > cap) {
        throw new KryoException("size count capped");
      }
    }
  }

  @Override
  public String toString() {
    return "KryoAttributeCodec[" + encoding.configName() + ", " + filter + ", " + limits + "]";
  }
}
