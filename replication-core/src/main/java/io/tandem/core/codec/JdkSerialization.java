package io.tandem.core.codec;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InvalidClassException;
import java.io.NotSerializableException;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.Map;

/**
 * Filtered JDK serialization shared by {@link JdkAttributeCodec} and the Kryo codec's fallback for JDK classes
 * that only serialize correctly through their own {@code writeObject}/{@code writeReplace}. Both directions are
 * bounded: output stops at the size limit, input refuses classes outside the {@link ClassFilter} before they are
 * loaded and applies the depth, array-length, reference and byte limits through an {@link ObjectInputFilter}.
 */
final class JdkSerialization {

  private static final Map<String, Class<?>> PRIMITIVES =
      Map.of(
          "boolean", boolean.class,
          "byte", byte.class,
          "char", char.class,
          "short", short.class,
          "int", int.class,
          "long", long.class,
          "float", float.class,
          "double", double.class,
          "void", void.class);

  private JdkSerialization() {}

  /**
   * Serializes {@code value}, refusing classes peers would refuse.
   *
   * @throws ValueTooLargeException past {@code maxBytes}
   * @throws CodecException when something in the graph is not serializable
   */
  static byte[] serialize(Object value, ClassFilter filter, int maxBytes) {
    String className = value.getClass().getName();
    BoundedByteArrayOutputStream bytes = new BoundedByteArrayOutputStream(maxBytes);
    try (FilteredObjectOutputStream out = new FilteredObjectOutputStream(bytes, filter)) {
      out.writeObject(value);
    } catch (SizeExceeded e) {
      throw new ValueTooLargeException(className, e.size, maxBytes);
    } catch (ClassNotAllowedException e) {
      throw e;
    } catch (NotSerializableException e) {
      throw new CodecException(
          "cannot serialize " + className + ": " + e.getMessage() + " does not implement java.io.Serializable",
          e);
    } catch (IOException | RuntimeException | StackOverflowError e) {
      throw new CodecException("cannot serialize " + className + ": " + e, e);
    }
    return bytes.toByteArray();
  }

  /**
   * Deserializes one object from {@code bytes[offset, offset + length)}.
   *
   * @throws ClassNotAllowedException naming a refused class
   * @throws CodecException for anything else that goes wrong
   */
  static Object deserialize(
      byte[] bytes, int offset, int length, ClassLoader loader, ClassFilter filter, CodecLimits limits) {
    LimitFilter limitFilter = new LimitFilter(filter, limits);
    try (FilteredObjectInputStream in =
        new FilteredObjectInputStream(
            new ByteArrayInputStream(bytes, offset, length), loader, filter, limitFilter)) {
      return in.readObject();
    } catch (ClassNotAllowedException e) {
      throw e;
    } catch (InvalidClassException e) {
      // The JDK wording ("filter status: REJECTED") does not say which class: the filter remembered it.
      if (limitFilter.rejectedClass != null) {
        throw new ClassNotAllowedException(limitFilter.rejectedClass, limitFilter.rejectedWhy);
      }
      if (limitFilter.limitViolation != null) {
        throw new CodecException("cannot deserialize value: " + limitFilter.limitViolation, e);
      }
      throw new CodecException("cannot deserialize value: " + e.getMessage(), e);
    } catch (IOException | ClassNotFoundException | RuntimeException | StackOverflowError e) {
      ClassNotAllowedException refused = CodecFailures.find(e, ClassNotAllowedException.class);
      if (refused != null) {
        throw refused;
      }
      throw new CodecException("cannot deserialize value: " + e, e);
    }
  }

  /** Resolves classes through the caller's loader, but only after the filter has accepted the name. */
  private static final class FilteredObjectInputStream extends ObjectInputStream {
    private final ClassLoader loader;
    private final ClassFilter filter;

    FilteredObjectInputStream(
        ByteArrayInputStream in, ClassLoader loader, ClassFilter filter, ObjectInputFilter limits)
        throws IOException {
      super(in);
      this.loader = loader;
      this.filter = filter;
      setObjectInputFilter(limits);
    }

    @Override
    protected Class<?> resolveClass(ObjectStreamClass desc) throws IOException, ClassNotFoundException {
      String name = desc.getName();
      filter.check(name); // before loading: a refused class is never even initialized or defined
      Class<?> primitive = PRIMITIVES.get(name);
      if (primitive != null) {
        return primitive;
      }
      return Class.forName(name, false, loader);
    }

    @Override
    protected Class<?> resolveProxyClass(String[] interfaces) {
      // Dynamic proxies are the hinge of several gadget chains and have no place in a session.
      throw new ClassNotAllowedException(
          "java.lang.reflect.Proxy" + Arrays.toString(interfaces), ClassFilter.DENIED);
    }
  }

  /** Applies the class filter (arrays by component) and the codec limits; remembers why it rejected. */
  private static final class LimitFilter implements ObjectInputFilter {
    private final ClassFilter filter;
    private final CodecLimits limits;
    private final ObjectInputFilter jvmWide = ObjectInputFilter.Config.getSerialFilter();
    String rejectedClass;
    String rejectedWhy;
    String limitViolation;

    LimitFilter(ClassFilter filter, CodecLimits limits) {
      this.filter = filter;
      this.limits = limits;
    }

    @Override
    public Status checkInput(FilterInfo info) {
      if (jvmWide != null && jvmWide.checkInput(info) == Status.REJECTED) {
        limitViolation = "rejected by the JVM-wide jdk.serialFilter";
        return Status.REJECTED;
      }
      Class<?> type = info.serialClass();
      if (type != null) {
        String why = filter.refusal(type.getName());
        if (why != null) {
          rejectedClass = type.getName();
          rejectedWhy = why;
          return Status.REJECTED;
        }
      }
      if (info.depth() > limits.maxDepth()) {
        return limit("nesting depth " + info.depth() + " exceeds maxDepth " + limits.maxDepth());
      }
      if (info.arrayLength() > limits.maxCollectionSize()) {
        return limit(
            "declared length "
                + info.arrayLength()
                + " exceeds maxCollectionSize "
                + limits.maxCollectionSize());
      }
      if (info.streamBytes() > limits.maxValueBytes()) {
        return limit("stream exceeds maxValueBytes " + limits.maxValueBytes());
      }
      // Every object is at least a few bytes, so a reference count above the byte limit is corrupt input.
      if (info.references() > limits.maxValueBytes()) {
        return limit("too many references: " + info.references());
      }
      return Status.ALLOWED;
    }

    private Status limit(String why) {
      limitViolation = why;
      return Status.REJECTED;
    }
  }

  /** Refuses, before writing, classes that peers would refuse to read. */
  private static final class FilteredObjectOutputStream extends ObjectOutputStream {
    private final ClassFilter filter;

    FilteredObjectOutputStream(OutputStream out, ClassFilter filter) throws IOException {
      super(out);
      this.filter = filter;
    }

    @Override
    protected void annotateClass(Class<?> type) {
      // ObjectOutputStream serializes its own failure (e.g. NotSerializableException) into the stream: let it.
      if (!Throwable.class.isAssignableFrom(type)) {
        filter.check(type.getName());
      }
    }

    @Override
    protected void annotateProxyClass(Class<?> type) {
      throw new ClassNotAllowedException(type.getName(), ClassFilter.DENIED);
    }
  }

  /** Signals the output limit; an IOException so ObjectOutputStream passes it through untouched. */
  private static final class SizeExceeded extends IOException {
    private static final long serialVersionUID = 1L;
    final long size;

    SizeExceeded(long size) {
      super("size limit exceeded");
      this.size = size;
    }
  }

  private static final class BoundedByteArrayOutputStream extends OutputStream {
    private final int max;
    private byte[] buf = new byte[256];
    private int count;

    BoundedByteArrayOutputStream(int max) {
      this.max = max;
    }

    @Override
    public void write(int b) throws IOException {
      ensure(1);
      buf[count++] = (byte) b;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      ensure(len);
      System.arraycopy(b, off, buf, count, len);
      count += len;
    }

    private void ensure(int len) throws IOException {
      long needed = (long) count + len;
      if (needed > max) {
        throw new SizeExceeded(needed);
      }
      if (needed > buf.length) {
        buf = Arrays.copyOf(buf, (int) Math.min(max, Math.max(needed, 2L * buf.length)));
      }
    }

    byte[] toByteArray() {
      return Arrays.copyOf(buf, count);
    }
  }
}
