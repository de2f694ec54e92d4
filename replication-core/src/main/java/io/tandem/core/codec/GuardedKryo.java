package io.tandem.core.codec;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.SerializerFactory;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.serializers.CollectionSerializer;
import com.esotericsoftware.kryo.serializers.CompatibleFieldSerializer;
import com.esotericsoftware.kryo.serializers.CompatibleFieldSerializer.CompatibleFieldSerializerConfig;
import com.esotericsoftware.kryo.serializers.DefaultArraySerializers.BooleanArraySerializer;
import com.esotericsoftware.kryo.serializers.DefaultArraySerializers.ObjectArraySerializer;
import com.esotericsoftware.kryo.serializers.DefaultArraySerializers.StringArraySerializer;
import com.esotericsoftware.kryo.serializers.DefaultSerializers.ArraysAsListSerializer;
import com.esotericsoftware.kryo.serializers.DefaultSerializers.EnumSerializer;
import com.esotericsoftware.kryo.serializers.DefaultSerializers.PriorityQueueSerializer;
import com.esotericsoftware.kryo.serializers.DefaultSerializers.URISerializer;
import com.esotericsoftware.kryo.serializers.DefaultSerializers.UUIDSerializer;
import com.esotericsoftware.kryo.serializers.EnumNameSerializer;
import com.esotericsoftware.kryo.serializers.RecordSerializer;
import com.esotericsoftware.kryo.serializers.MapSerializer;
import com.esotericsoftware.kryo.util.DefaultInstantiatorStrategy;
import com.esotericsoftware.kryo.util.MapReferenceResolver;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URI;
import java.util.Collection;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.UUID;
import org.objenesis.strategy.StdInstantiatorStrategy;

/**
 * A Kryo instance configured for untrusted input: class names are filtered before loading, every instantiated
 * class is filtered again (covering field types Kryo does not name in the stream), and every serializer that
 * allocates from a declared length checks it first.
 *
 * <p>Writing mirrors reading: the class of every object written is checked, named in the stream or not, so that
 * whatever this instance writes, an instance with the same filter reads. Reading checks a declared type only when
 * a value of it follows (not for a null final field), because writing has no object, and so no class, to check.
 *
 * <p>Application classes are written in one {@link KryoFieldEncoding}. {@link KryoFieldEncoding#COMPATIBLE} reads
 * field names and the class of each field's value from the stream: the names only select among the fields the local
 * class declares (a name it does not declare is read as a value of its named class and dropped; transient and static
 * fields are never named), and every class named goes through the {@link FilteringClassResolver} before it is loaded
 * and through {@code readObject}'s check, like any other; a value whose class does not fit its field's declared type
 * is refused, not converted. The count of names a class's schema declares is checked before Kryo allocates for it.
 *
 * <p>Implementation notes: one instance serves one thread at a time (it is pooled by {@link KryoAttributeCodec});
 * its fields, including {@code checkedTypes} and {@code decoding}, belong to the borrowing thread.
 */
final class GuardedKryo extends Kryo {
  private final ClassFilter filter;
  private final CodecLimits limits;
  private final KryoFieldEncoding encoding;
  private final FilteringClassResolver resolver;
  private final Map<Class<?>, Boolean> checkedTypes = new IdentityHashMap<>();
  private boolean decoding;

  GuardedKryo(ClassFilter filter, CodecLimits limits, KryoFieldEncoding encoding) {
    this(new FilteringClassResolver(filter), filter, limits, encoding);
  }

  private GuardedKryo(
      FilteringClassResolver resolver, ClassFilter filter, CodecLimits limits, KryoFieldEncoding encoding) {
    super(resolver, new MapReferenceResolver());
    this.resolver = resolver;
    this.filter = filter;
    this.limits = limits;
    this.encoding = encoding;
    if (encoding == KryoFieldEncoding.COMPATIBLE) {
      setDefaultSerializer(new CompatibleFields(limits));
      // Without this, a collection or map written for a field declared List<String> leaves out its elements'
      // classes, and a reader whose field is gone or declared otherwise misreads it (Kryo issues 907 and 1098).
      setOptimizedGenerics(false);
    }
    setRegistrationRequired(false);
    setReferences(true);
    setMaxDepth(limits.maxDepth());
    // No-arg constructor when there is one, otherwise Objenesis (as JDK deserialization would do).
    setInstantiatorStrategy(new DefaultInstantiatorStrategy(new StdInstantiatorStrategy()));
    addDefaultSerializer(UUID.class, new UUIDSerializer());
    addDefaultSerializer(URI.class, new URISerializer());
  }

  FilteringClassResolver resolver() {
    return resolver;
  }

  KryoFieldEncoding encoding() {
    return encoding;
  }

  void decoding(boolean decoding) {
    this.decoding = decoding;
  }

  /*
   * Kryo names a class in the stream only where the declared type leaves it open; for final field and element
   * types it reads the declared type directly. Checking every type read (and every type instantiated) closes
   * that gap, so the filter sees the same classes a JDK ObjectInputFilter would.
   */

  @Override
  public <T> T readObject(Input input, Class<T> type) {
    checkType(type);
    return super.readObject(input, type);
  }

  @Override
  @SuppressWarnings("rawtypes")
  public <T> T readObject(Input input, Class<T> type, Serializer serializer) {
    checkType(type);
    return super.readObject(input, type, serializer);
  }

  @Override
  public <T> T readObjectOrNull(Input input, Class<T> type) {
    if (!nullFollows(input)) {
      checkType(type);
    }
    return super.readObjectOrNull(input, type);
  }

  @Override
  @SuppressWarnings("rawtypes")
  public <T> T readObjectOrNull(Input input, Class<T> type, Serializer serializer) {
    if (!nullFollows(input)) {
      checkType(type);
    }
    return super.readObjectOrNull(input, type, serializer);
  }

  @Override
  public <T> T newInstance(Class<T> type) {
    checkType(type);
    return super.newInstance(type);
  }

  /*
   * Every object Kryo writes goes through one of these five methods, whichever serializer writes it; the reader's
   * checks (class names, declared types, instantiated types) all concern classes of objects written here.
   */

  @Override
  public void writeObject(Output output, Object object) {
    checkWritten(object);
    super.writeObject(output, object);
  }

  @Override
  @SuppressWarnings("rawtypes")
  public void writeObject(Output output, Object object, Serializer serializer) {
    checkWritten(object);
    super.writeObject(output, object, serializer);
  }

  @Override
  @SuppressWarnings("rawtypes")
  public void writeObjectOrNull(Output output, Object object, Class type) {
    checkWritten(object);
    super.writeObjectOrNull(output, object, type);
  }

  @Override
  @SuppressWarnings("rawtypes")
  public void writeObjectOrNull(Output output, Object object, Serializer serializer) {
    checkWritten(object);
    super.writeObjectOrNull(output, object, serializer);
  }

  @Override
  public void writeClassAndObject(Output output, Object object) {
    checkWritten(object);
    super.writeClassAndObject(output, object);
  }

  private void checkWritten(Object object) {
    if (object != null) {
      filter.checkWrite(object.getClass()); // cached per class by the filter
    }
  }

  /**
   * Whether the value {@code readObjectOrNull} is about to read is null. References are always on here, so the
   * value starts with a varint that is 0 exactly for null, and a varint is 0 exactly when its first byte is.
   */
  private static boolean nullFollows(Input input) {
    int position = input.position();
    return position < input.limit() && input.getBuffer()[position] == Kryo.NULL;
  }

  private void checkType(Class<?> type) {
    if (decoding && !type.isPrimitive() && !checkedTypes.containsKey(type)) {
      filter.check(type.getName());
      checkedTypes.put(type, Boolean.TRUE);
    }
  }

  @Override
  @SuppressWarnings({"rawtypes", "unchecked"})
  public Serializer getDefaultSerializer(Class type) {
    if (needsJdkSerialization(type.getName())) {
      return new JdkFallbackSerializer(filter, limits);
    }
    Serializer serializer = super.getDefaultSerializer(type);
    Class<?> kind = serializer.getClass();
    if (kind == CollectionSerializer.class) {
      return new GuardedCollectionSerializer(limits);
    }
    if (kind == MapSerializer.class) {
      return new GuardedMapSerializer(limits);
    }
    if (kind == PriorityQueueSerializer.class) {
      return new GuardedPriorityQueueSerializer(limits);
    }
    if (kind == ArraysAsListSerializer.class) {
      return new GuardedArraysAsListSerializer(limits);
    }
    if (kind == ObjectArraySerializer.class) {
      return new GuardedObjectArraySerializer(this, type, limits);
    }
    if (kind == StringArraySerializer.class) {
      return new GuardedStringArraySerializer(limits);
    }
    if (kind == BooleanArraySerializer.class) {
      return new GuardedBooleanArraySerializer(limits);
    }
    if (encoding == KryoFieldEncoding.COMPATIBLE) {
      if (kind == EnumSerializer.class) {
        return new EnumNameSerializer(type); // by name: inserting or reordering constants changes no value
      }
      if (kind == RecordSerializer.class) {
        return new CompatibleRecordSerializer(type, limits);
      }
    }
    return serializer;
  }

  /**
   * Makes a {@link GuardedCompatibleFieldSerializer} for each class no other serializer handles. Kryo's settings:
   * the class of every field's value is written (so a field the reader no longer declares can still be read past,
   * with the references it holds), and no chunked encoding: skipping a chunk it cannot read would leave the reference
   * numbering of the rest of the value wrong, so a value whose dropped field holds a class this node cannot load
   * fails whole instead (and is dropped alone by the session).
   */
  private static final class CompatibleFields
      extends SerializerFactory.BaseSerializerFactory<GuardedCompatibleFieldSerializer<?>> {
    private final CodecLimits limits;

    CompatibleFields(CodecLimits limits) {
      this.limits = limits;
    }

    @Override
    @SuppressWarnings({"rawtypes", "unchecked"})
    public GuardedCompatibleFieldSerializer<?> newSerializer(Kryo kryo, Class type) {
      CompatibleFieldSerializerConfig config = new CompatibleFieldSerializerConfig();
      config.setReadUnknownFieldData(true);
      config.setChunkedEncoding(false);
      // Fields are matched by name: a class that shadows a superclass's field names each by its declaring class.
      config.setExtendedFieldNames(shadowsAField(type));
      return new GuardedCompatibleFieldSerializer(kryo, type, config, limits);
    }
  }

  /** Whether two fields Kryo would write for {@code type} (instance, not transient) have the same name. */
  static boolean shadowsAField(Class<?> type) {
    Set<String> names = new HashSet<>();
    for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
      for (Field field : c.getDeclaredFields()) {
        int modifiers = field.getModifiers();
        if (!Modifier.isStatic(modifiers) && !Modifier.isTransient(modifiers) && !field.isSynthetic()
            && !names.add(field.getName())) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * Kryo's compatible field serializer with the declared length of a class's field-name schema checked before Kryo
   * allocates two arrays of it: each name takes at least one byte.
   */
  static final class GuardedCompatibleFieldSerializer<T> extends CompatibleFieldSerializer<T> {
    private final CodecLimits limits;

    GuardedCompatibleFieldSerializer(
        Kryo kryo, Class<T> type, CompatibleFieldSerializerConfig config, CodecLimits limits) {
      super(kryo, type, config);
      this.limits = limits;
    }

    @Override
    @SuppressWarnings("unchecked") // Kryo's graph context is a raw map
    protected T create(Kryo kryo, Input input, Class<? extends T> type) {
      if (kryo.getGraphContext().get(this) == null) { // the schema of this class follows, first time in this value
        checkSchemaLength(input, limits);
      }
      return super.create(kryo, input, type);
    }
  }

  /** For a compatible serializer's schema, whose arrays are allocated in full from the declared count of names. */
  static void checkSchemaLength(Input input, CodecLimits limits) {
    int start = input.position();
    int declared = input.readVarInt(true);
    input.setPosition(start);
    int remaining = input.limit() - start;
    if (declared < 0 || declared > limits.maxCollectionSize() || declared > remaining) {
      throw new CodecException(
          "cannot deserialize value: declared field count "
              + declared
              + " exceeds the bytes left or maxCollectionSize "
              + limits.maxCollectionSize()
              + " (corrupt or truncated data)");
    }
  }

  /**
   * JDK classes whose state Kryo cannot rebuild field by field: unmodifiable and synchronized wrappers have no
   * usable constructor, and {@code List.of}/{@code Set.of}/{@code Map.of} place elements by a per-JVM random
   * salt, so copying their fields to another JVM would corrupt them. Kryo's generic map serializer cannot create
   * an {@code EnumMap} (no key type), and its collection serializer would drop a {@code ConcurrentSkipListSet}'s
   * comparator. Their own serialization form is safe.
   */
  private static boolean needsJdkSerialization(String name) {
    if (name.startsWith("java.util.ImmutableCollections$")
        || name.equals("java.util.EnumMap")
        || name.equals("java.util.concurrent.ConcurrentSkipListSet")) {
      return true;
    }
    return name.startsWith("java.util.Collections$")
        && !name.startsWith("java.util.Collections$Empty")
        && !name.startsWith("java.util.Collections$Singleton");
  }

  /**
   * Checks a declared element count and returns a safe initial capacity: the count can exceed the bytes left
   * only in a list of nulls, so pre-allocating more than the bytes left is never needed.
   */
  static int checkedCapacity(int declared, Input input, CodecLimits limits) {
    if (declared < 0 || declared > limits.maxCollectionSize()) {
      throw new CodecException(
          "cannot deserialize value: declared size "
              + declared
              + " exceeds maxCollectionSize "
              + limits.maxCollectionSize());
    }
    int remaining = input.limit() - input.position();
    return Math.min(declared, Math.max(remaining, 0));
  }

  /** For arrays, which must be allocated in full: each element takes at least one byte. */
  static void checkArrayLength(Input input, CodecLimits limits) {
    int start = input.position();
    int declared = input.readVarInt(true) - 1; // 0 means null
    input.setPosition(start);
    int capacity = checkedCapacity(Math.max(declared, 0), input, limits);
    if (declared > capacity) {
      throw new CodecException(
          "cannot deserialize value: declared array length "
              + declared
              + " exceeds the bytes left (corrupt or truncated data)");
    }
  }

  @SuppressWarnings({"rawtypes", "unchecked"})
  static final class GuardedCollectionSerializer extends CollectionSerializer<Collection> {
    private final CodecLimits limits;

    GuardedCollectionSerializer(CodecLimits limits) {
      this.limits = limits;
    }

    @Override
    protected Collection create(Kryo kryo, Input input, Class<? extends Collection> type, int size) {
      return super.create(kryo, input, type, checkedCapacity(size, input, limits));
    }
  }

  @SuppressWarnings({"rawtypes", "unchecked"})
  static final class GuardedMapSerializer extends MapSerializer<Map> {
    private final CodecLimits limits;

    GuardedMapSerializer(CodecLimits limits) {
      this.limits = limits;
    }

    @Override
    protected Map create(Kryo kryo, Input input, Class<? extends Map> type, int size) {
      // Each entry takes at least two bytes.
      return super.create(kryo, input, type, checkedCapacity(size, input, limits) / 2);
    }
  }

  @SuppressWarnings("rawtypes")
  static final class GuardedPriorityQueueSerializer extends PriorityQueueSerializer {
    private final CodecLimits limits;

    GuardedPriorityQueueSerializer(CodecLimits limits) {
      this.limits = limits;
    }

    @Override
    protected PriorityQueue create(
        Kryo kryo, Input input, Class<? extends PriorityQueue> type, int size) {
      return super.create(kryo, input, type, checkedCapacity(size, input, limits));
    }
  }

  @SuppressWarnings("rawtypes")
  static final class GuardedArraysAsListSerializer extends ArraysAsListSerializer {
    private final CodecLimits limits;

    GuardedArraysAsListSerializer(CodecLimits limits) {
      this.limits = limits;
    }

    @Override
    protected List create(Kryo kryo, Input input, Class type, int size) {
      return super.create(kryo, input, type, checkedCapacity(size, input, limits));
    }
  }

  @SuppressWarnings("rawtypes")
  static final class GuardedObjectArraySerializer extends ObjectArraySerializer {
    private final CodecLimits limits;

    GuardedObjectArraySerializer(Kryo kryo, Class type, CodecLimits limits) {
      super(kryo, type);
      this.limits = limits;
    }

    @Override
    public Object[] read(Kryo kryo, Input input, Class type) {
      checkArrayLength(input, limits);
      return super.read(kryo, input, type);
    }
  }

  @SuppressWarnings("rawtypes")
  static final class GuardedStringArraySerializer extends StringArraySerializer {
    private final CodecLimits limits;

    GuardedStringArraySerializer(CodecLimits limits) {
      this.limits = limits;
    }

    @Override
    public String[] read(Kryo kryo, Input input, Class type) {
      checkArrayLength(input, limits);
      return super.read(kryo, input, type);
    }
  }

  @SuppressWarnings("rawtypes")
  static final class GuardedBooleanArraySerializer extends BooleanArraySerializer {
    private final CodecLimits limits;

    GuardedBooleanArraySerializer(CodecLimits limits) {
      this.limits = limits;
    }

    @Override
    public boolean[] read(Kryo kryo, Input input, Class type) {
      checkArrayLength(input, limits);
      return super.read(kryo, input, type);
    }
  }

  /** Writes a value with filtered JDK serialization, length-prefixed, inside the Kryo stream. */
  static final class JdkFallbackSerializer extends Serializer<Object> {
    private final ClassFilter filter;
    private final CodecLimits limits;

    JdkFallbackSerializer(ClassFilter filter, CodecLimits limits) {
      this.filter = filter;
      this.limits = limits;
    }

    @Override
    public void write(Kryo kryo, Output output, Object object) {
      // The embedded stream may use only what is left of the value's budget (less its 5-byte length prefix).
      int left =
          output.getOutputStream() != null
              ? KryoAttributeCodec.measureCap(limits) // only when measuring an oversized value
              : output.getMaxCapacity() - output.position() - 5;
      byte[] bytes = JdkSerialization.serialize(object, filter, Math.max(left, 0));
      output.writeVarInt(bytes.length, true);
      output.writeBytes(bytes);
    }

    @Override
    public Object read(Kryo kryo, Input input, Class<? extends Object> type) {
      int length = input.readVarInt(true);
      byte[] bytes = input.readBytes(length); // BoundedInput checks the length first
      Object value =
          JdkSerialization.deserialize(bytes, 0, length, kryo.getClassLoader(), filter, limits);
      if (!type.isInstance(value)) {
        throw new CodecException(
            "cannot deserialize "
                + type.getName()
                + ": embedded JDK stream holds a "
                + value.getClass().getName());
      }
      return value;
    }
  }
}
