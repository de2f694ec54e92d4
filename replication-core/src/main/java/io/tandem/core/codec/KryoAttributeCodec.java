package io.tandem.core.codec;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.SerializerFactory;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.KryoBufferOverflowException;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.serializers.CollectionSerializer;
import com.esotericsoftware.kryo.serializers.DefaultSerializers;
import com.esotericsoftware.kryo.serializers.MapSerializer;
import com.esotericsoftware.kryo.util.DefaultClassResolver;
import com.esotericsoftware.kryo.util.MapReferenceResolver;
import com.esotericsoftware.kryo.util.Pool;
import io.tandem.core.session.Blob;
import java.util.Collection;
import java.util.Map;
import java.util.UUID;
import org.objenesis.strategy.StdInstantiatorStrategy;

/**
 * Kryo serialization: several times faster and smaller than Java serialization for typical session attributes.
 * Classes are written by name (no registration needed), object graphs keep their shared references, and classes
 * without a no-arg constructor are instantiated the way Java serialization would.
 *
 * <p>Safety: a class name read from the bytes is checked against the {@link ClassFilter} before it is loaded
 * (through the given class loader); depth, value size and every length are bounded by the {@link CodecLimits}.
 * JDK wrappers that Kryo cannot rebuild field by field ({@code Collections.unmodifiable*}, {@code List.of}) go
 * through {@link JdkAttributeCodec}, under the same filter.
 *
 * <p>Implementation notes: Kryo instances are not thread-safe; each call borrows one from a pool and returns it
 * only after a clean run (a failed read can leave it mid-graph, so it is dropped instead).
 */
public final class KryoAttributeCodec implements AttributeCodec {
  private final ClassFilter filter;
  private final CodecLimits limits;
  private final JdkAttributeCodec jdk;
  private final Pool<Kryo> pool =
      new Pool<>(true, false, 64) {
        @Override
        protected Kryo create() {
          return newKryo();
        }
      };

  public KryoAttributeCodec(ClassFilter filter, CodecLimits limits) {
    this.filter = filter;
    this.limits = limits;
    this.jdk = new JdkAttributeCodec(filter, limits);
  }

  @Override
  public String name() {
    return "kryo";
  }

  @Override
  public Blob encode(Object value) {
    String className = value.getClass().getName();
    Kryo kryo = pool.obtain();
    boolean clean = false;
    try {
      Output output = new Output(Math.min(4096, limits.maxValueBytes()), limits.maxValueBytes());
      kryo.writeClassAndObject(output, value);
      clean = true;
      return Blob.wrap(output.toBytes());
    } catch (KryoBufferOverflowException e) {
      throw new ValueTooLargeException(className, limits.maxValueBytes() + 1L, limits.maxValueBytes());
    } catch (CodecException e) {
      throw e;
    } catch (KryoException | StackOverflowError | IllegalArgumentException | UnsupportedOperationException e) {
      if (e.getCause() instanceof CodecException codec) {
        throw codec;
      }
      throw new CodecException("cannot serialize " + className + ": " + e.getMessage(), e);
    } finally {
      if (clean) {
        pool.free(kryo);
      }
    }
  }

  @Override
  public Object decode(Blob blob, ClassLoader loader) {
    if (blob.size() > limits.maxValueBytes()) {
      throw new ValueTooLargeException("(serialized value)", blob.size(), limits.maxValueBytes());
    }
    Kryo kryo = pool.obtain();
    boolean clean = false;
    kryo.setClassLoader(loader);
    try {
      Input input = new BoundedKryoInput(blob.bytes(), limits.maxCollectionSize());
      Object value = kryo.readClassAndObject(input);
      if (input.position() != input.limit()) {
        throw new CodecException((input.limit() - input.position()) + " unexpected bytes after a serialized value");
      }
      clean = true;
      return value;
    } catch (CodecException e) {
      throw e;
    } catch (KryoException | StackOverflowError | IllegalArgumentException | IllegalStateException | ClassCastException
        | IndexOutOfBoundsException | NegativeArraySizeException | UnsupportedOperationException e) {
      CodecException cause = findCodecCause(e);
      if (cause != null) {
        throw cause;
      }
      throw new CodecException("cannot deserialize: " + e.getMessage(), e);
    } finally {
      kryo.setClassLoader(KryoAttributeCodec.class.getClassLoader());
      if (clean) {
        pool.free(kryo);
      }
    }
  }

  private static CodecException findCodecCause(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof CodecException codec) {
        return codec;
      }
    }
    return null;
  }

  private Kryo newKryo() {
    Kryo kryo = new FilteringKryo(new FilteringClassResolver(filter));
    kryo.setRegistrationRequired(false);
    kryo.setReferences(true);
    kryo.setMaxDepth(limits.maxDepth());
    kryo.setInstantiatorStrategy(new com.esotericsoftware.kryo.util.DefaultInstantiatorStrategy(new StdInstantiatorStrategy()));
    kryo.register(UUID.class, new DefaultSerializers.UUIDSerializer());
    int maxSize = limits.maxCollectionSize();
    kryo.addDefaultSerializer(Collection.class, new SerializerFactory.BaseSerializerFactory<CollectionSerializer<?>>() {
      @Override
      @SuppressWarnings("rawtypes")
      public CollectionSerializer<?> newSerializer(Kryo k, Class type) {
        return new BoundedCollectionSerializer(maxSize);
      }
    });
    kryo.addDefaultSerializer(Map.class, new SerializerFactory.BaseSerializerFactory<MapSerializer<?>>() {
      @Override
      @SuppressWarnings("rawtypes")
      public MapSerializer<?> newSerializer(Kryo k, Class type) {
        return new BoundedMapSerializer(maxSize);
      }
    });
    return kryo;
  }

  /** Sends JDK wrapper collections, which Kryo cannot rebuild field by field, through Java serialization. */
  private final class FilteringKryo extends Kryo {
    FilteringKryo(DefaultClassResolver resolver) {
      super(resolver, new MapReferenceResolver());
    }

    @Override
    @SuppressWarnings("rawtypes")
    public Serializer getDefaultSerializer(Class type) {
      String name = type.getName();
      if (name.startsWith("java.util.Collections$")
          || name.startsWith("java.util.ImmutableCollections$")
          || name.equals("java.util.Arrays$ArrayList")) {
        return new JdkFallbackSerializer(jdk);
      }
      Serializer serializer = super.getDefaultSerializer(type);
      return type.isArray() ? new BoundedArraySerializer(serializer) : serializer;
    }
  }

  /** Checks every class name read from the bytes against the filter before loading it. */
  private static final class FilteringClassResolver extends DefaultClassResolver {
    private final ClassFilter filter;

    FilteringClassResolver(ClassFilter filter) {
      this.filter = filter;
    }

    @Override
    @SuppressWarnings("rawtypes")
    protected Class getTypeByName(String className) {
      filter.check(className);
      try {
        // Resolved here rather than cached by name, so a pooled Kryo never hands one web application's class
        // to a call made with another's loader.
        return Class.forName(className, false, kryo.getClassLoader());
      } catch (ClassNotFoundException e) {
        throw new CodecException("class " + className + " is not visible to the web application's class loader", e);
      }
    }
  }

  @SuppressWarnings({"rawtypes", "unchecked"})
  private static final class BoundedCollectionSerializer extends CollectionSerializer {
    private final int max;

    BoundedCollectionSerializer(int max) {
      this.max = max;
    }

    @Override
    protected Collection create(Kryo kryo, Input input, Class type, int size) {
      if (size > max || !((BoundedKryoInput) input).fits(size, 1)) {
        throw new CodecException("collection of " + size + " elements exceeds the limit of " + max + " or the bytes left");
      }
      return super.create(kryo, input, type, size);
    }
  }

  @SuppressWarnings({"rawtypes", "unchecked"})
  private static final class BoundedMapSerializer extends MapSerializer {
    private final int max;

    BoundedMapSerializer(int max) {
      this.max = max;
    }

    @Override
    protected Map create(Kryo kryo, Input input, Class type, int size) {
      if (size > max || !((BoundedKryoInput) input).fits(size, 2)) {
        throw new CodecException("map of " + size + " entries exceeds the limit of " + max + " or the bytes left");
      }
      return super.create(kryo, input, type, size);
    }
  }

  /** Refuses an array length the remaining bytes cannot hold before the array serializer allocates it. */
  @SuppressWarnings({"rawtypes", "unchecked"})
  private static final class BoundedArraySerializer extends Serializer {
    private final Serializer delegate;

    BoundedArraySerializer(Serializer delegate) {
      super(delegate.getAcceptsNull(), delegate.isImmutable());
      this.delegate = delegate;
    }

    @Override
    public void write(Kryo kryo, Output output, Object object) {
      delegate.write(kryo, output, object);
    }

    @Override
    public Object read(Kryo kryo, Input input, Class type) {
      ((BoundedKryoInput) input).checkNextArrayLength();
      return delegate.read(kryo, input, type);
    }
  }

  /** Java serialization inside a Kryo stream, length-prefixed, with the same filter and limits. */
  private static final class JdkFallbackSerializer extends Serializer<Object> {
    private final JdkAttributeCodec jdk;

    JdkFallbackSerializer(JdkAttributeCodec jdk) {
      this.jdk = jdk;
    }

    @Override
    public void write(Kryo kryo, Output output, Object object) {
      byte[] bytes = jdk.encode(object).bytes();
      output.writeVarInt(bytes.length, true);
      output.writeBytes(bytes);
    }

    @Override
    public Object read(Kryo kryo, Input input, Class<? extends Object> type) {
      int length = input.readVarInt(true);
      if (!((BoundedKryoInput) input).fits(length, 1)) {
        throw new CodecException("embedded serialized value of " + length + " bytes exceeds the bytes left");
      }
      return jdk.decode(Blob.wrap(input.readBytes(length)), kryo.getClassLoader());
    }
  }
}
