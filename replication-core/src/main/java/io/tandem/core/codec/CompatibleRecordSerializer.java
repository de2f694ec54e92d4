package io.tandem.core.codec;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.util.ObjectMap;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Map;

/**
 * A record by component name, as {@link KryoFieldEncoding#COMPATIBLE} writes classes by field name: the names of its
 * components once per record class per value, then each component's value with its class. A reader whose record has
 * gained a component passes it its default ({@code null}, zero, {@code false}); one whose record lost a component
 * reads that value and drops it; a value whose class does not fit its component's type is refused. The record is made
 * by its canonical constructor, as Kryo's own record serializer does, so its validation runs.
 *
 * <p>Every value is read through {@code readClassAndObject}, so its class goes through the class filter before it is
 * loaded; the declared count of names is checked before anything is allocated for it.
 *
 * <p>Implementation notes: immutable after construction (one per record class per Kryo instance); the per-value
 * schema state lives in the Kryo instance's graph context, which belongs to the thread using that instance.
 */
@SuppressWarnings("rawtypes")
final class CompatibleRecordSerializer extends Serializer<Record> {
  private static final Map<Class<?>, Object> PRIMITIVE_DEFAULTS = Map.of(
      boolean.class, false, byte.class, (byte) 0, short.class, (short) 0, char.class, (char) 0,
      int.class, 0, long.class, 0L, float.class, 0f, double.class, 0d);

  private final CodecLimits limits;
  /** By name, the order of the bytes. */
  private final RecordComponent[] byName;
  private final Method[] accessors;
  /** Index in {@code byName} of each parameter of the canonical constructor. */
  private final int[] parameterOf;
  private final Constructor<?> canonical;

  CompatibleRecordSerializer(Class<?> type, CodecLimits limits) {
    this.limits = limits;
    RecordComponent[] declared = type.getRecordComponents();
    if (declared == null) {
      throw new IllegalArgumentException(type.getName() + " is not a record");
    }
    this.byName = declared.clone();
    Arrays.sort(byName, Comparator.comparing(RecordComponent::getName));
    this.accessors = new Method[byName.length];
    for (int i = 0; i < byName.length; i++) {
      accessors[i] = byName[i].getAccessor();
      accessors[i].setAccessible(true);
    }
    this.parameterOf = new int[declared.length];
    Class<?>[] parameterTypes = new Class<?>[declared.length];
    for (int p = 0; p < declared.length; p++) {
      parameterTypes[p] = declared[p].getType();
      parameterOf[p] = Arrays.asList(byName).indexOf(declared[p]);
    }
    try {
      this.canonical = type.getDeclaredConstructor(parameterTypes);
      canonical.setAccessible(true);
    } catch (NoSuchMethodException e) {
      throw new IllegalArgumentException(type.getName() + " has no canonical constructor", e);
    }
    setImmutable(true);
  }

  @Override
  @SuppressWarnings("unchecked") // Kryo's graph context is a raw map
  public void write(Kryo kryo, Output output, Record record) {
    ObjectMap context = kryo.getGraphContext();
    if (!context.containsKey(this)) {
      context.put(this, null);
      output.writeVarInt(byName.length, true);
      for (RecordComponent component : byName) {
        output.writeString(component.getName());
      }
    }
    for (int i = 0; i < byName.length; i++) {
      Object value;
      try {
        value = accessors[i].invoke(record);
      } catch (IllegalAccessException | InvocationTargetException e) {
        throw new CodecException("cannot serialize " + record.getClass().getName() + ": component "
            + byName[i].getName() + " cannot be read: " + e, e);
      }
      kryo.writeClassAndObject(output, value);
    }
  }

  @Override
  @SuppressWarnings("unchecked") // Kryo's graph context is a raw map
  public Record read(Kryo kryo, Input input, Class<? extends Record> type) {
    ObjectMap context = kryo.getGraphContext();
    int[] fromBytes = (int[]) context.get(this);
    if (fromBytes == null) {
      fromBytes = readSchema(input);
      context.put(this, fromBytes);
    }
    Object[] values = new Object[byName.length];
    for (int i = 0; i < byName.length; i++) {
      values[i] = PRIMITIVE_DEFAULTS.get(byName[i].getType());
    }
    for (int local : fromBytes) {
      Object value = kryo.readClassAndObject(input);
      if (local < 0) {
        continue; // a component this version of the record no longer has
      }
      RecordComponent component = byName[local];
      if (value == null) {
        continue; // a primitive keeps its default
      }
      if (!fits(value, component.getType())) {
        throw new CodecException("cannot deserialize " + type.getName() + ": component " + component.getName()
            + " is a " + component.getType().getName() + " here, the bytes hold a " + value.getClass().getName()
            + " (incompatible change of its type)");
      }
      values[local] = value;
    }
    Object[] arguments = new Object[parameterOf.length];
    for (int p = 0; p < parameterOf.length; p++) {
      arguments[p] = values[parameterOf[p]];
    }
    try {
      return (Record) canonical.newInstance(arguments);
    } catch (InvocationTargetException e) {
      throw new CodecException("cannot deserialize " + type.getName() + ": its constructor refused the values read: "
          + e.getCause(), e.getCause());
    } catch (ReflectiveOperationException e) {
      throw new CodecException("cannot deserialize " + type.getName() + ": " + e, e);
    }
  }

  /** The names the bytes hold, each as the index of this record's component of that name, or -1. */
  private int[] readSchema(Input input) {
    GuardedKryo.checkSchemaLength(input, limits);
    int count = input.readVarInt(true);
    int[] local = new int[count];
    for (int i = 0; i < count; i++) {
      String name = input.readString();
      local[i] = -1;
      for (int c = 0; c < byName.length; c++) {
        if (byName[c].getName().equals(name)) {
          local[i] = c;
          break;
        }
      }
    }
    return local;
  }

  private static boolean fits(Object value, Class<?> type) {
    if (type.isPrimitive()) {
      Object zero = PRIMITIVE_DEFAULTS.get(type);
      return zero.getClass() == value.getClass();
    }
    return type.isInstance(value);
  }
}
