package io.tandem.core.codec;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InvalidClassException;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.io.OutputStream;
import java.io.Serializable;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;

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
   * Serializes {@code value}, refusing every class a reader with the same filter would refuse: the value's own
   * class (before any {@code writeReplace}, as {@link ClassFilter#refusalOf(Class)} judges it), every object
   * written (after replacement), and every class descriptor written (superclasses, array classes, {@code Class}
   * objects). So whatever this method returns, {@link #deserialize} with the same filter and class loader accepts.
   *
   * @throws ClassNotAllowedException naming the first refused class met
   * @throws ClassNotSerializableException naming the first object's class that is not {@link Serializable}
   * @throws ValueTooLargeException as soon as the output passes {@code maxBytes}
   * @throws CodecException when a class's own {@code writeObject} fails
   */
  static byte[] serialize(Object value, ClassFilter filter, int maxBytes) {
    String className = value.getClass().getName();
    filter.checkWrite(value.getClass());
    BoundedByteArrayOutputStream bytes = new BoundedByteArrayOutputStream(maxBytes);
    try (FilteredObjectOutputStream out = new FilteredObjectOutputStream(bytes, filter)) {
      out.writeObject(value);
    } catch (SizeExceeded e) {
      throw new ValueTooLargeException(className, e.size, false, maxBytes, CodecDirection.SERIALIZING);
    } catch (CodecException e) {
      throw e;
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
        throw ClassNotAllowedException.onRead(limitFilter.rejectedClass, limitFilter.rejectedWhy);
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
      throw ClassNotAllowedException.onRead(
          "java.lang.reflect.Proxy" + Arrays.toString(interfaces), ClassFilter.PROXY);
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
          rejectedClass = ClassFilter.refusedName(type);
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

  /**
   * Refuses, before writing, every class that a reader would refuse, and every object that is not
   * {@link Serializable}. Both refusals are runtime exceptions, which {@link ObjectOutputStream#writeObject} lets
   * through untouched.
   *
   * <p>One exception to the checks: when an {@link IOException} (from a class's own {@code writeObject}, or the
   * size limit) escapes, {@code ObjectOutputStream} writes the exception object itself into the stream before
   * rethrowing it. Refusing the exception's classes there would replace the real failure with a misleading one,
   * and the bytes are discarded anyway, so nothing is checked while that happens.
   */
  private static final class FilteredObjectOutputStream extends ObjectOutputStream {
    private static final StackWalker STACK = StackWalker.getInstance();
    private final ClassFilter filter;

    FilteredObjectOutputStream(OutputStream out, ClassFilter filter) throws IOException {
      super(out);
      this.filter = filter;
      enableReplaceObject(true); // only to see every object written, after its own writeReplace
    }

    @Override
    protected Object replaceObject(Object obj) {
      Class<?> type = obj.getClass();
      Optional<String> why = filter.refusalOf(type);
      if (why.isPresent()) {
        refuse(ClassNotAllowedException.onWrite(ClassFilter.refusedName(type), why.get()));
      } else if (!(obj instanceof Serializable) && !type.isArray()) {
        // ObjectOutputStream would throw NotSerializableException, an IOException it then writes into the stream.
        refuse(new ClassNotSerializableException(type.getName()));
      }
      return obj;
    }

    @Override
    protected void annotateClass(Class<?> type) {
      Optional<String> why = filter.refusalOf(type);
      if (why.isPresent()) {
        refuse(ClassNotAllowedException.onWrite(ClassFilter.refusedName(type), why.get()));
      }
    }

    @Override
    protected void annotateProxyClass(Class<?> type) {
      refuse(ClassNotAllowedException.onWrite(type.getName(), ClassFilter.PROXY));
    }

    private static void refuse(CodecException refusal) {
      // Refusals are rare, so walking the stack only then costs nothing on the common path.
      if (!writingFailure()) {
        throw refusal;
      }
    }

    private static boolean writingFailure() {
      return STACK.walk(
          frames ->
              frames.anyMatch(
                  f ->
                      f.getClassName().equals("java.io.ObjectOutputStream")
                          && f.getMethodName().equals("writeFatalException")));
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
