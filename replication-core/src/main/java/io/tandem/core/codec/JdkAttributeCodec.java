package io.tandem.core.codec;

import io.tandem.core.session.Blob;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InvalidClassException;
import java.io.NotSerializableException;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.io.Serializable;

/**
 * Java serialization, for applications whose attributes rely on {@code writeObject}/{@code readObject}. Every
 * class in the stream passes the {@link ClassFilter} through an {@link ObjectInputFilter} (which also bounds
 * depth, array lengths, references and bytes) before it is resolved through the given class loader.
 */
public final class JdkAttributeCodec implements AttributeCodec {
  private final ClassFilter filter;
  private final CodecLimits limits;

  public JdkAttributeCodec(ClassFilter filter, CodecLimits limits) {
    this.filter = filter;
    this.limits = limits;
  }

  @Override
  public String name() {
    return "jdk";
  }

  @Override
  public Blob encode(Object value) {
    String className = value.getClass().getName();
    if (!(value instanceof Serializable)) {
      throw new CodecException(className + " does not implement java.io.Serializable");
    }
    BoundedByteArrayOutputStream bytes = new BoundedByteArrayOutputStream(limits.maxValueBytes());
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(value);
    } catch (BoundedByteArrayOutputStream.LimitExceeded e) {
      throw new ValueTooLargeException(className, e.size, limits.maxValueBytes());
    } catch (NotSerializableException e) {
      throw new CodecException(className + " references " + e.getMessage() + ", which is not serializable", e);
    } catch (IOException | RuntimeException e) {
      throw new CodecException("cannot serialize " + className + ": " + e, e);
    }
    return Blob.wrap(bytes.toByteArray());
  }

  @Override
  public Object decode(Blob blob, ClassLoader loader) {
    if (blob.size() > limits.maxValueBytes()) {
      throw new ValueTooLargeException("(serialized value)", blob.size(), limits.maxValueBytes());
    }
    RefusalRecorder recorder = new RefusalRecorder(filter, limits);
    try (FilteredObjectInputStream in = new FilteredObjectInputStream(new ByteArrayInputStream(blob.bytes()), loader)) {
      in.setObjectInputFilter(recorder);
      return in.readObject();
    } catch (ClassNotAllowedException e) {
      throw e;
    } catch (InvalidClassException e) {
      if (recorder.refusedClass != null) {
        throw new ClassNotAllowedException(recorder.refusedClass, recorder.refusedWhy);
      }
      throw new CodecException("cannot deserialize: " + e.getMessage(), e);
    } catch (ClassNotFoundException e) {
      throw new CodecException("class " + e.getMessage() + " is not visible to the web application's class loader", e);
    } catch (IOException | RuntimeException | StackOverflowError e) {
      if (recorder.refusedClass != null) {
        throw new ClassNotAllowedException(recorder.refusedClass, recorder.refusedWhy);
      }
      throw new CodecException("cannot deserialize: " + e, e);
    }
  }

  /** Applies the class filter and the limits, remembering what it refused so the error can name it. */
  private static final class RefusalRecorder implements ObjectInputFilter {
    private final ClassFilter filter;
    private final CodecLimits limits;
    private String refusedClass;
    private String refusedWhy;

    RefusalRecorder(ClassFilter filter, CodecLimits limits) {
      this.filter = filter;
      this.limits = limits;
    }

    @Override
    public Status checkInput(FilterInfo info) {
      if (info.depth() > limits.maxDepth()) {
        return reject("(nesting)", "object graph deeper than " + limits.maxDepth());
      }
      if (info.arrayLength() > limits.maxCollectionSize()) {
        return reject("(array)", "array of " + info.arrayLength() + " elements exceeds " + limits.maxCollectionSize());
      }
      if (info.streamBytes() > limits.maxValueBytes()) {
        return reject("(stream)", "more than " + limits.maxValueBytes() + " bytes");
      }
      Class<?> type = info.serialClass();
      if (type != null) {
        String name = type.getName();
        if (!filter.allows(name)) {
          try {
            filter.check(name);
          } catch (ClassNotAllowedException e) {
            return reject(name, e.getMessage().substring(e.getMessage().indexOf(": ") + 2));
          }
        }
      }
      return type != null ? Status.ALLOWED : Status.UNDECIDED;
    }

    private Status reject(String name, String why) {
      if (refusedClass == null) {
        refusedClass = name;
        refusedWhy = why;
      }
      return Status.REJECTED;
    }
  }

  /**
   * Resolves classes through the web application's loader, and checks the filter before even loading a class,
   * so a refused class's static initializer never runs.
   */
  private final class FilteredObjectInputStream extends ObjectInputStream {
    private final ClassLoader loader;

    FilteredObjectInputStream(ByteArrayInputStream in, ClassLoader loader) throws IOException {
      super(in);
      this.loader = loader;
    }

    @Override
    protected Class<?> resolveClass(ObjectStreamClass desc) throws IOException, ClassNotFoundException {
      filter.check(desc.getName());
      try {
        return Class.forName(desc.getName(), false, loader);
      } catch (ClassNotFoundException e) {
        return super.resolveClass(desc);
      }
    }

    @Override
    protected Class<?> resolveProxyClass(String[] interfaces) throws IOException {
      throw new ClassNotAllowedException("java.lang.reflect.Proxy", "dynamic proxies are never deserialized");
    }
  }
}
