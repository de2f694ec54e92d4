package io.tandem.core.codec;

import com.esotericsoftware.kryo.Registration;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.util.DefaultClassResolver;
import com.esotericsoftware.kryo.util.IntMap;
import java.util.Map;

/**
 * Kryo class resolver that consults the {@link ClassFilter} before a class named in the stream is loaded, and
 * loads it only through the decode call's class loader ({@code Kryo#getClassLoader()}).
 *
 * <p>Unlike {@link DefaultClassResolver} it keeps no name-to-class cache across calls: a pooled Kryo instance
 * serves several class loaders over its life, and a cached {@code Class} from one loader must never be handed to
 * another. The loaders cache loaded classes themselves, so the lookup stays cheap.
 */
final class FilteringClassResolver extends DefaultClassResolver {
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

  private final ClassFilter filter;
  private String lastClassName;

  FilteringClassResolver(ClassFilter filter) {
    this.filter = filter;
  }

  /** The last class name read from the stream in this call, for error messages; may be null. */
  String lastClassName() {
    return lastClassName;
  }

  @Override
  protected Registration readName(Input input) {
    int nameId = input.readVarInt(true);
    if (nameIdToClass == null) {
      nameIdToClass = new IntMap<>();
    }
    Class<?> type = nameIdToClass.get(nameId);
    if (type == null) {
      String className = input.readString();
      if (className == null || className.isEmpty()) {
        throw new CodecException("cannot deserialize value: the stream names no class");
      }
      lastClassName = className;
      filter.check(className); // before Class.forName: a refused class is never loaded
      type = load(className);
      nameIdToClass.put(nameId, type);
    }
    return kryo.getRegistration(type);
  }

  private Class<?> load(String className) {
    Class<?> primitive = PRIMITIVES.get(className);
    if (primitive != null) {
      return primitive;
    }
    try {
      return Class.forName(className, false, kryo.getClassLoader());
    } catch (ClassNotFoundException | LinkageError e) {
      throw new CodecException(
          "cannot deserialize " + className + ": class not found through the given class loader", e);
    }
  }

  @Override
  @SuppressWarnings("rawtypes")
  protected void writeName(Output output, Class type, Registration registration) {
    // Fail on the writing node, where the application can be told, rather than on every peer at failover.
    filter.checkWrite(type);
    // An enum constant with a body has a class of its own, but Kryo reads it through its enum's serializer:
    // naming the enum lets the reader (and the filter) judge the class the application declared.
    Class<?> named = isEnumBody(type) ? type.getSuperclass() : type;
    super.writeName(output, named, registration);
  }

  private static boolean isEnumBody(Class<?> type) {
    return !type.isEnum() && type.getSuperclass() != null && type.getSuperclass().isEnum();
  }

  /** Forgets the previous call's class name; Kryo's own reset runs too early (as an exception unwinds). */
  void beginCall() {
    lastClassName = null;
  }
}
