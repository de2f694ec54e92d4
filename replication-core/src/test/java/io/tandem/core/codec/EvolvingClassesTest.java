package io.tandem.core.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.serializers.CompatibleFieldSerializer;
import io.tandem.core.session.Blob;
import io.tandem.core.testing.ClassVersions;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A value written by one version of an application class and read by another: the same class name, compiled at test
 * time in two shapes into two directories, each loaded by its own class loader (as two deployments' web application
 * class loaders load their own {@code WEB-INF/classes}). The Kryo codec encodes with version A's instance and decodes
 * with version B's loader, in the default {@link KryoFieldEncoding#COMPATIBLE} and in {@link KryoFieldEncoding#FAST}.
 */
class EvolvingClassesTest {
  private static final String PROFILE = "com.example.evolving.Profile";
  private static final ClassFilter APP = ClassFilter.of(List.of("com.example.evolving.**"));
  private static final ClassLoader TESTS = EvolvingClassesTest.class.getClassLoader();

  @TempDir Path dir;
  private final List<URLClassLoader> loaders = new ArrayList<>();

  @AfterEach
  void closeLoaders() throws Exception {
    for (URLClassLoader loader : loaders) {
      loader.close();
    }
  }

  // ---- fields added and removed ------------------------------------------------------------------------------------

  @Test
  void decode_fieldAddedInTheNewVersion_newFieldHasItsDefault_othersKeepTheirValues() {
    ClassLoader v1 = version("v1", profile("String name; int visits;"));
    ClassLoader v2 = version("v2", profile("String name; int visits; String theme = \"light\"; int loyalty;"));
    Blob written = codec(KryoFieldEncoding.COMPATIBLE).encode(newInstance(v1, PROFILE, Map.of("name", "ann", "visits", 7)));

    Object read = codec(KryoFieldEncoding.COMPATIBLE).decode(written, v2);

    assertThat(read.getClass().getClassLoader()).isSameAs(v2);
    assertThat(fields(read)).containsExactlyInAnyOrderEntriesOf(
        Map.of("name", "ann", "visits", 7, "theme", "light", "loyalty", 0));
  }

  /** Among the fields removed: a generic collection (Kryo issues 907, 1098) and an object of a class still there. */
  @Test
  void decode_fieldRemovedInTheNewVersion_otherFieldsSurvive() {
    String coupon = "package com.example.evolving; public class Coupon { String code; int percent; }";
    ClassLoader v1 = version("v1",
        profile("Coupon coupon; String name; int visits; String legacy; java.util.List<String> tags; String zone;"),
        "com.example.evolving.Coupon", coupon);
    ClassLoader v2 = version("v2", profile("String name; int visits; String zone;"), "com.example.evolving.Coupon", coupon);
    Object profile = newInstance(v1, PROFILE, Map.of("name", "ann", "visits", 7, "legacy", "old",
        "tags", new ArrayList<>(List.of("a", "b")), "zone", "eu"));
    set(profile, "coupon", newInstance(v1, "com.example.evolving.Coupon", Map.of("code", "SPRING", "percent", 10)));

    Object read = codec(KryoFieldEncoding.COMPATIBLE).decode(codec(KryoFieldEncoding.COMPATIBLE).encode(profile), v2);

    assertThat(fields(read)).containsExactlyInAnyOrderEntriesOf(Map.of("name", "ann", "visits", 7, "zone", "eu"));
  }

  /** The declared element type changed: the elements' classes are in the bytes, not taken from the declaration. */
  @Test
  void decode_genericTypeArgumentChanged_elementsAreReadAsWritten() {
    ClassLoader v1 = version("v1", profile("java.util.List<String> tags; java.util.Map<String, Integer> scores;"));
    ClassLoader v2 = version("v2", profile("java.util.List<CharSequence> tags; java.util.Map<String, Number> scores;"));
    Object profile = newInstance(v1, PROFILE, Map.of("tags", new ArrayList<>(List.of("a", "b")),
        "scores", new java.util.HashMap<>(Map.of("chess", 1200))));

    Object read = codec(KryoFieldEncoding.COMPATIBLE).decode(codec(KryoFieldEncoding.COMPATIBLE).encode(profile), v2);

    assertThat(fields(read)).containsEntry("tags", List.of("a", "b")).containsEntry("scores", Map.of("chess", 1200));
  }

  @Test
  void decode_olderVersionReadsANewerOne_theFieldItLacksIsSkipped() {
    ClassLoader v1 = version("v1", profile("String name; int visits;"));
    ClassLoader v2 = version("v2", profile("String name; int visits; java.util.Map<String, Integer> scores;"));
    Object newer = newInstance(v2, PROFILE,
        Map.of("name", "ann", "visits", 7, "scores", new java.util.HashMap<>(Map.of("chess", 1200))));

    Object read = codec(KryoFieldEncoding.COMPATIBLE).decode(codec(KryoFieldEncoding.COMPATIBLE).encode(newer), v1);

    assertThat(fields(read)).containsExactlyInAnyOrderEntriesOf(Map.of("name", "ann", "visits", 7));
  }

  /** What Tandem did before this setting existed, and what {@code kryoFieldSerializer="fast"} still does. */
  @Test
  void decode_fast_fieldAddedOrRemoved_failsRatherThanReading() {
    ClassLoader v1 = version("v1", profile("String name; int visits; String legacy;"));
    ClassLoader added = version("added", profile("String name; int visits; String legacy; String theme;"));
    ClassLoader removed = version("removed", profile("String name; int visits;"));
    AttributeCodec fast = codec(KryoFieldEncoding.FAST);
    Blob written = fast.encode(newInstance(v1, PROFILE, Map.of("name", "ann", "visits", 7, "legacy", "old")));

    assertThat(catchThrowable(() -> fast.decode(written, added))).isInstanceOf(CodecException.class);
    assertThat(catchThrowable(() -> fast.decode(written, removed))).isInstanceOf(CodecException.class)
        .hasMessageContaining(PROFILE);
    assertThat(fields(fast.decode(written, v1))).as("the same version still reads it").containsEntry("legacy", "old");
  }

  @Test
  void decode_valueWrittenFast_isReadFastByACompatibleNode() {
    ClassLoader v1 = version("v1", profile("String name; int visits;"));
    Blob written = codec(KryoFieldEncoding.FAST).encode(newInstance(v1, PROFILE, Map.of("name", "ann", "visits", 7)));

    assertThat(written.array()[written.offset()]).isEqualTo(KryoFieldEncoding.FAST.tag());
    assertThat(fields(codec(KryoFieldEncoding.COMPATIBLE).decode(written, v1)))
        .containsExactlyInAnyOrderEntriesOf(Map.of("name", "ann", "visits", 7));
  }

  @Test
  void decode_sharedReferencesAcrossAChangedClass_stayShared() {
    ClassLoader v1 = version("v1", profile("String name; int visits;"));
    ClassLoader v2 = version("v2", profile("String name; String theme; int visits;"));
    Object ann = newInstance(v1, PROFILE, Map.of("name", "ann", "visits", 1));
    Object bob = newInstance(v1, PROFILE, Map.of("name", "bob", "visits", 2));
    List<Object> team = new ArrayList<>(List.of(ann, bob, ann));

    List<?> read = (List<?>) codec(KryoFieldEncoding.COMPATIBLE).decode(codec(KryoFieldEncoding.COMPATIBLE).encode(team), v2);

    assertThat(read).hasSize(3);
    assertThat(read.get(2)).isSameAs(read.get(0));
    assertThat(fields(read.get(1))).containsEntry("name", "bob").containsEntry("visits", 2).containsEntry("theme", null);
  }

  // ---- what still cannot be read ---------------------------------------------------------------------------------

  @Test
  void decode_aRemovedFieldWhoseClassIsGoneToo_failsNamingThatClass() {
    ClassLoader v1 = version("v1", profile("String name; Coupon coupon;"),
        "com.example.evolving.Coupon", "package com.example.evolving; public class Coupon { String code = \"X\"; }");
    ClassLoader v2 = version("v2", profile("String name;"));
    Object profile = newInstance(v1, PROFILE, Map.of("name", "ann"));
    set(profile, "coupon", newInstance(v1, "com.example.evolving.Coupon", Map.of()));
    Blob written = codec(KryoFieldEncoding.COMPATIBLE).encode(profile);

    Throwable failure = catchThrowable(() -> codec(KryoFieldEncoding.COMPATIBLE).decode(written, v2));

    assertThat(failure).isInstanceOf(CodecException.class).hasMessageContaining("com.example.evolving.Coupon");
  }

  @Test
  void decode_fieldTypeChanged_isRefusedNotConverted() {
    ClassLoader v1 = version("v1", profile("String name; int visits;"));
    ClassLoader v2 = version("v2", profile("String name; String visits;"));
    Blob written = codec(KryoFieldEncoding.COMPATIBLE).encode(newInstance(v1, PROFILE, Map.of("name", "ann", "visits", 7)));

    Throwable failure = catchThrowable(() -> codec(KryoFieldEncoding.COMPATIBLE).decode(written, v2));

    assertThat(failure).isInstanceOf(CodecException.class).hasMessageContaining(PROFILE).hasMessageContaining("incompatible");
  }

  // ---- enums -----------------------------------------------------------------------------------------------------

  @Test
  void decode_enumConstantInserted_compatibleKeepsTheConstant_fastSilentlyReadsAnother() {
    String tierV1 = "package com.example.evolving; public enum Tier { SILVER, GOLD }";
    String tierV2 = "package com.example.evolving; public enum Tier { BRONZE, SILVER, GOLD }";
    ClassLoader v1 = version("v1", profile("String name; Tier tier;"), "com.example.evolving.Tier", tierV1);
    ClassLoader v2 = version("v2", profile("String name; Tier tier;"), "com.example.evolving.Tier", tierV2);
    Object profile = newInstance(v1, PROFILE, Map.of("name", "ann", "tier", constant(v1, "GOLD")));

    Object compatible = codec(KryoFieldEncoding.COMPATIBLE).decode(codec(KryoFieldEncoding.COMPATIBLE).encode(profile), v2);
    Object fast = codec(KryoFieldEncoding.FAST).decode(codec(KryoFieldEncoding.FAST).encode(profile), v2);

    assertThat(fields(compatible).get("tier")).isSameAs(constant(v2, "GOLD"));
    assertThat(fields(fast).get("tier")).as("by ordinal: the value changed without an error").isSameAs(constant(v2, "SILVER"));
  }

  @Test
  void decode_enumConstantRemoved_compatibleFailsNamingIt() {
    ClassLoader v1 = version("v1", profile("Tier tier;"), "com.example.evolving.Tier",
        "package com.example.evolving; public enum Tier { SILVER, GOLD, PLATINUM }");
    ClassLoader v2 = version("v2", profile("Tier tier;"), "com.example.evolving.Tier",
        "package com.example.evolving; public enum Tier { SILVER, GOLD }");
    Object profile = newInstance(v1, PROFILE, Map.of("tier", constant(v1, "PLATINUM")));

    Throwable failure = catchThrowable(
        () -> codec(KryoFieldEncoding.COMPATIBLE).decode(codec(KryoFieldEncoding.COMPATIBLE).encode(profile), v2));

    assertThat(failure).isInstanceOf(CodecException.class).hasMessageContaining("PLATINUM");
  }

  // ---- records ---------------------------------------------------------------------------------------------------

  @Test
  void decode_recordComponentAddedOrRemoved_otherComponentsSurvive_throughTheCanonicalConstructor() {
    String line = "com.example.evolving.Line";
    ClassLoader v1 = classes("v1", line, "package com.example.evolving; public record Line(String sku, int qty) {}");
    ClassLoader v2 = classes("v2", line, "package com.example.evolving; public record Line(String sku, int qty,"
        + " String note, long since) { public Line { if (qty < 0) throw new IllegalArgumentException(); } }");
    Object older = newRecord(v1, line, "book", 2);
    Object newer = newRecord(v2, line, "pen", 5, "gift", 9L);
    AttributeCodec codec = codec(KryoFieldEncoding.COMPATIBLE);

    List<?> read = (List<?>) codec.decode(codec.encode(new ArrayList<>(List.of(older, older))), v2);
    Object back = codec.decode(codec.encode(newer), v1);

    assertThat(read.get(0).toString()).isEqualTo("Line[sku=book, qty=2, note=null, since=0]");
    assertThat(read.get(1)).isSameAs(read.get(0));
    assertThat(back.toString()).isEqualTo("Line[sku=pen, qty=5]");
    assertThat(catchThrowable(() -> codec(KryoFieldEncoding.FAST).decode(codec(KryoFieldEncoding.FAST).encode(older), v2)))
        .as("fast: by position").isInstanceOf(CodecException.class);
  }

  @Test
  void decode_recordComponentTypeChanged_isRefused() {
    String line = "com.example.evolving.Line";
    ClassLoader v1 = classes("v1", line, "package com.example.evolving; public record Line(String sku, int qty) {}");
    ClassLoader v2 = classes("v2", line, "package com.example.evolving; public record Line(String sku, String qty) {}");
    AttributeCodec codec = codec(KryoFieldEncoding.COMPATIBLE);

    Throwable failure = catchThrowable(() -> codec.decode(codec.encode(newRecord(v1, line, "book", 2)), v2));

    assertThat(failure).isInstanceOf(CodecException.class).hasMessageContaining(line).hasMessageContaining("qty");
  }

  // ---- field names and inheritance -------------------------------------------------------------------------------

  /** Matched by plain name, the superclass's {@code id} would be read into the subclass's field and lost. */
  @Test
  void roundTrip_subclassShadowingAFieldOfItsSuperclass_keepsBothFields() {
    ClassLoader v1 = classes("v1",
        "com.example.evolving.Base", "package com.example.evolving; public class Base { String id; }",
        "com.example.evolving.Sub", "package com.example.evolving; public class Sub extends Base { String id; int n; }");
    Object sub = newInstance(v1, "com.example.evolving.Sub", Map.of("n", 3));
    setDeclared(sub, "com.example.evolving.Base", "id", "base");
    setDeclared(sub, "com.example.evolving.Sub", "id", "sub");

    Object read = codec(KryoFieldEncoding.COMPATIBLE).decode(codec(KryoFieldEncoding.COMPATIBLE).encode(sub), v1);

    assertThat(getDeclared(read, "com.example.evolving.Base", "id")).isEqualTo("base");
    assertThat(getDeclared(read, "com.example.evolving.Sub", "id")).isEqualTo("sub");
    assertThat(getDeclared(read, "com.example.evolving.Sub", "n")).isEqualTo(3);
  }

  @Test
  void decode_fieldMadeTransient_isNotRestoredFromTheBytes() {
    ClassLoader v1 = version("v1", profile("String name; String token;"));
    ClassLoader v2 = version("v2", profile("String name; transient String token;"));
    Blob written = codec(KryoFieldEncoding.COMPATIBLE).encode(newInstance(v1, PROFILE, Map.of("name", "ann", "token", "t0k3n")));

    Object read = codec(KryoFieldEncoding.COMPATIBLE).decode(written, v2);

    assertThat(getDeclared(read, PROFILE, "name")).isEqualTo("ann");
    assertThat(getDeclared(read, PROFILE, "token")).isNull();
  }

  // ---- the class filter and the limits still hold ----------------------------------------------------------------

  /**
   * The class of a field's value is named in the stream: it is checked before it is loaded, both for a field the
   * reader declares and for one it no longer declares (read only to be dropped).
   */
  @Test
  void decode_fieldValueOfAClassOutsideTheFilter_isRefusedBeforeItIsLoaded() {
    String secret = "package com.example.evolving; public class Secret { String s = \"x\"; }";
    ClassLoader v1 = version("v1", profile("String name; Object extra;"), "com.example.evolving.Secret", secret);
    Object profile = newInstance(v1, PROFILE, Map.of("name", "ann"));
    set(profile, "extra", newInstance(v1, "com.example.evolving.Secret", Map.of()));
    Blob written = codec(KryoFieldEncoding.COMPATIBLE).encode(profile);
    AttributeCodec profileOnly = new KryoAttributeCodec(ClassFilter.of(List.of(PROFILE)), CodecLimits.defaults());

    for (String reader : List.of("String name; Object extra;", "String name;")) {
      RecordingLoader v2 = new RecordingLoader(
          ClassVersions.compile(dir.resolve("v2-" + reader.length()), sources(profile(reader), "com.example.evolving.Secret", secret)));

      Throwable failure = catchThrowable(() -> profileOnly.decode(written, v2));

      assertThat(failure).as(reader).isInstanceOfSatisfying(ClassNotAllowedException.class,
          e -> assertThat(e.className()).isEqualTo("com.example.evolving.Secret"));
      assertThat(v2.requested).as(reader).contains(PROFILE).doesNotContain("com.example.evolving.Secret");
    }
  }

  /** A class's schema, and a record's: Kryo would allocate two arrays of the declared count. */
  @ParameterizedTest
  @ValueSource(classes = {io.tandem.core.codec.fixtures.LoaderProbe.class, io.tandem.core.codec.fixtures.Address.class})
  @Timeout(5)
  void decode_schemaDeclaringAHugeFieldCount_failsFastWithoutAllocating(Class<?> type) {
    Kryo plain = new Kryo();
    plain.setRegistrationRequired(false);
    plain.setReferences(true);
    plain.addDefaultSerializer(type, new AttributeCodecTest.HeaderOnlySerializer(o -> o.writeVarInt(Integer.MAX_VALUE, true)));
    Output out = new Output(64, -1);
    out.writeByte(KryoFieldEncoding.COMPATIBLE.tag());
    Object value = type == io.tandem.core.codec.fixtures.Address.class
        ? new io.tandem.core.codec.fixtures.Address("London", 1)
        : new io.tandem.core.codec.fixtures.LoaderProbe("x");
    plain.writeClassAndObject(out, value);
    AttributeCodec codec =
        new KryoAttributeCodec(ClassFilter.of(List.of("io.tandem.core.codec.fixtures.**")), CodecLimits.defaults());

    Throwable failure = catchThrowable(() -> codec.decode(Blob.wrap(out.toBytes()), TESTS));

    assertThat(failure).isExactlyInstanceOf(CodecException.class).hasMessageContaining("declared field count");
  }

  @Test
  void decode_plainKryosCompatibleStream_isReadByTheGuardedOne() {
    ClassLoader v1 = version("v1", profile("String name; int visits;"));
    Kryo plain = new Kryo();
    plain.setRegistrationRequired(false);
    plain.setReferences(true);
    plain.setDefaultSerializer(CompatibleFieldSerializer.class);
    Output out = new Output(256, -1);
    out.writeByte(KryoFieldEncoding.COMPATIBLE.tag());
    plain.writeClassAndObject(out, newInstance(v1, PROFILE, Map.of("name", "ann", "visits", 7)));

    Object read = codec(KryoFieldEncoding.COMPATIBLE).decode(Blob.wrap(out.toBytes()), v1);

    assertThat(fields(read)).containsEntry("name", "ann").containsEntry("visits", 7);
  }

  // ---- the class a value's bytes name ----------------------------------------------------------------------------

  @Test
  void className_namesTheValuesClassFromItsBytesAlone() {
    ClassLoader v1 = version("v1", profile("String name;"));
    Blob profile = codec(KryoFieldEncoding.COMPATIBLE).encode(newInstance(v1, PROFILE, Map.of("name", "ann")));
    AttributeCodec jdk = new JdkAttributeCodec(APP, CodecLimits.defaults());

    assertThat(codec(KryoFieldEncoding.COMPATIBLE).className(profile)).contains(PROFILE);
    assertThat(codec(KryoFieldEncoding.FAST).className(profile)).as("either encoding").contains(PROFILE);
    assertThat(codec(KryoFieldEncoding.COMPATIBLE).className(codec(KryoFieldEncoding.FAST).encode("text")))
        .contains("java.lang.String");
    assertThat(codec(KryoFieldEncoding.COMPATIBLE).className(Blob.wrap(new byte[] {1, 2, 3}))).isEmpty();
    assertThat(jdk.className(jdk.encode(newInstance(v1, PROFILE, Map.of("name", "ann"))))).contains(PROFILE);
    assertThat(jdk.className(jdk.encode("text"))).contains("java.lang.String");
    assertThat(jdk.className(Blob.wrap(new byte[] {1, 2, 3}))).isEmpty();
  }

  // ---- helpers -----------------------------------------------------------------------------------------------------

  private static AttributeCodec codec(KryoFieldEncoding encoding) {
    return new KryoAttributeCodec(APP, CodecLimits.defaults(), encoding);
  }

  /** {@code com.example.evolving.Profile} with these field declarations, each package-private. */
  static String profile(String fields) {
    return "package com.example.evolving;\n"
        + "public class Profile implements java.io.Serializable {\n  " + fields + "\n  public Profile() {}\n}\n";
  }

  private static Map<String, String> sources(String profile, String... more) {
    Map<String, String> sources = new LinkedHashMap<>();
    sources.put(PROFILE, profile);
    for (int i = 0; i < more.length; i += 2) {
      sources.put(more[i], more[i + 1]);
    }
    return sources;
  }

  /** A version of the application: its Profile (and more classes, name then source), compiled and loaded. */
  private ClassLoader version(String name, String profile, String... more) {
    return load(name, sources(profile, more));
  }

  /** A version of the application made of these classes (name then source). */
  private ClassLoader classes(String name, String firstClass, String firstSource, String... more) {
    Map<String, String> sources = new LinkedHashMap<>();
    sources.put(firstClass, firstSource);
    for (int i = 0; i < more.length; i += 2) {
      sources.put(more[i], more[i + 1]);
    }
    return load(name, sources);
  }

  private ClassLoader load(String name, Map<String, String> sources) {
    URLClassLoader loader = ClassVersions.loader(ClassVersions.compile(dir.resolve(name), sources), TESTS);
    loaders.add(loader);
    return loader;
  }

  static Object newInstance(ClassLoader loader, String className, Map<String, Object> values) {
    try {
      Object instance = Class.forName(className, true, loader).getConstructor().newInstance();
      values.forEach((field, value) -> set(instance, field, value));
      return instance;
    } catch (ReflectiveOperationException e) {
      throw new AssertionError(e);
    }
  }

  private static Object newRecord(ClassLoader loader, String className, Object... components) {
    try {
      Class<?> type = Class.forName(className, true, loader);
      Class<?>[] types = java.util.Arrays.stream(type.getRecordComponents()).map(c -> c.getType()).toArray(Class<?>[]::new);
      return type.getConstructor(types).newInstance(components);
    } catch (ReflectiveOperationException e) {
      throw new AssertionError(e);
    }
  }

  private static Object constant(ClassLoader loader, String name) {
    try {
      @SuppressWarnings({"unchecked", "rawtypes"})
      Object constant = Enum.valueOf((Class) Class.forName("com.example.evolving.Tier", true, loader), name);
      return constant;
    } catch (ClassNotFoundException e) {
      throw new AssertionError(e);
    }
  }

  static void set(Object instance, String field, Object value) {
    setDeclared(instance, instance.getClass().getName(), field, value);
  }

  private static void setDeclared(Object instance, String declaringClass, String field, Object value) {
    try {
      Field f = declared(instance, declaringClass, field);
      f.set(instance, value);
    } catch (ReflectiveOperationException e) {
      throw new AssertionError(e);
    }
  }

  private static Object getDeclared(Object instance, String declaringClass, String field) {
    try {
      return declared(instance, declaringClass, field).get(instance);
    } catch (ReflectiveOperationException e) {
      throw new AssertionError(e);
    }
  }

  private static Field declared(Object instance, String declaringClass, String field) throws NoSuchFieldException {
    Class<?> c = instance.getClass();
    while (!c.getName().equals(declaringClass)) {
      c = c.getSuperclass();
    }
    Field f = c.getDeclaredField(field);
    f.setAccessible(true);
    return f;
  }

  /** Every instance field of the value's own class, by name (a map that allows null values). */
  static Map<String, Object> fields(Object instance) {
    Map<String, Object> fields = new LinkedHashMap<>();
    for (Field f : instance.getClass().getDeclaredFields()) {
      if (!Modifier.isStatic(f.getModifiers())) {
        f.setAccessible(true);
        try {
          fields.put(f.getName(), f.get(instance));
        } catch (IllegalAccessException e) {
          throw new AssertionError(e);
        }
      }
    }
    return fields;
  }

  /** Loads its directory's classes itself and records every class name it is asked for. */
  private static final class RecordingLoader extends URLClassLoader {
    final Set<String> requested = ConcurrentHashMap.newKeySet();

    RecordingLoader(Path directory) {
      super(new URL[] {url(directory)}, TESTS);
    }

    private static URL url(Path directory) {
      try {
        return directory.toUri().toURL();
      } catch (java.net.MalformedURLException e) {
        throw new IllegalArgumentException(e);
      }
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      requested.add(name);
      return super.loadClass(name, resolve);
    }
  }
}
