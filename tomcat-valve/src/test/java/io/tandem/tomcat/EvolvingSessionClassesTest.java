package io.tandem.tomcat;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.core.codec.AttributeCodec;
import io.tandem.core.codec.ClassFilter;
import io.tandem.core.codec.CodecLimits;
import io.tandem.core.codec.KryoAttributeCodec;
import io.tandem.core.codec.KryoFieldEncoding;
import io.tandem.core.session.Blob;
import io.tandem.core.session.EncodedValue;
import io.tandem.core.session.SessionMetadata;
import io.tandem.core.testing.ClassVersions;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.security.Principal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.apache.catalina.realm.GenericPrincipal;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A session taken over by a node that runs the next version of the application: its values and its login were
 * written by version 1 of their classes and are read through version 2's class loader (both versions compiled at test
 * time, same class names, different fields), through the real session path: {@link TandemSession#getAttribute},
 * {@link TandemManager#decodeAttribute} with the real Kryo codec, and {@link LoginCodec}. {@link EvolvingClassesIT}
 * runs the same on two Tomcat nodes.
 */
class EvolvingSessionClassesTest {
  static final String PROFILE = EvolvingClasses.PROFILE;
  private static final ClassFilter APP = ClassFilter.of(List.of("com.example.evolving.**"));

  @TempDir Path dir;
  private URLClassLoader v1;
  private URLClassLoader v2;
  private final List<String> warnings = new ArrayList<>();
  private final Logger managerLog = Logger.getLogger(TandemManager.class.getName());
  private final Handler capture = new Handler() {
    @Override
    public void publish(LogRecord record) {
      warnings.add(record.getMessage());
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  };

  @BeforeEach
  void compileBothVersions() {
    v1 = ClassVersions.loader(ClassVersions.compile(dir.resolve("v1"), EvolvingClasses.version1()), getClass().getClassLoader());
    v2 = ClassVersions.loader(ClassVersions.compile(dir.resolve("v2"), EvolvingClasses.version2()), getClass().getClassLoader());
    managerLog.addHandler(capture);
  }

  @AfterEach
  void close() throws Exception {
    managerLog.removeHandler(capture);
    v1.close();
    v2.close();
  }

  /** A manager that decodes through version 2's loader with a real Kryo codec; not started (no cluster). */
  static final class NextVersionManager extends TandemManager {
    private final AttributeCodec codec;
    private final ClassLoader loader;

    NextVersionManager(AttributeCodec codec, ClassLoader loader) {
      this.codec = codec;
      this.loader = loader;
    }

    @Override
    AttributeCodec attributeCodec() {
      return codec;
    }

    @Override
    ClassLoader applicationLoader() {
      return loader;
    }
  }

  @Test
  void getAttribute_compatible_valuesOfTheOldClassesAreReadByTheNewOnes() {
    AttributeCodec codec = codec(KryoFieldEncoding.COMPATIBLE);
    NextVersionManager manager = new NextVersionManager(codec, v2);
    TandemSession session = takenOver(manager, Map.of("profile", encoded(codec, EvolvingClasses.profile(v1, "ann")),
        "badge", encoded(codec, EvolvingClasses.badge(v1, "gold")), "user", encoded(codec, "ann")));

    assertThat(session.getAttribute("profile")).hasToString("Profile[name=ann, visits=3, theme=light]");
    assertThat(session.getAttribute("profile").getClass().getClassLoader()).isSameAs(v2);
    assertThat(session.getAttribute("badge")).hasToString("Badge[gold, zone=eu]");
    assertThat(session.getAttribute("user")).isEqualTo("ann");
    assertThat(manager.getAttributesUnreadable()).isZero();
    assertThat(warnings).isEmpty();
  }

  /** What every value of a changed class risked before {@code kryoFieldSerializer} existed, and "fast" still does. */
  @Test
  void getAttribute_fast_valueTheNewClassCannotRead_isDroppedAlone_countedAndLoggedByName() {
    AttributeCodec codec = codec(KryoFieldEncoding.FAST);
    NextVersionManager manager = new NextVersionManager(codec, v2);
    TandemSession session = takenOver(manager, Map.of(
        "badge", encoded(codec, EvolvingClasses.badge(v1, "gold")), "user", encoded(codec, "ann"),
        "cart", encoded(codec, new ArrayList<>(List.of("book", "pen")))));

    assertThat(session.getAttribute("badge")).isNull();
    assertThat(session.getAttribute("badge")).as("dropped once").isNull();

    assertThat(session.getAttribute("user")).isEqualTo("ann");
    assertThat(session.getAttribute("cart")).isEqualTo(List.of("book", "pen"));
    assertThat(session.attributeNames()).containsExactlyInAnyOrder("user", "cart");
    assertThat(manager.getAttributesUnreadable()).isEqualTo(1);
    assertThat(warnings).singleElement().asString().contains("Session [s1]", "attribute [badge]",
        "of class [" + EvolvingClasses.BADGE + "]", "keeps its other attributes");
  }

  /** Worse than a failure: fields by position, a removed field's value lands in the next one, with no error at all. */
  @Test
  void getAttribute_fast_fieldRemovedAndAnotherAdded_readsTheWrongFieldsWithoutAnError() {
    AttributeCodec codec = codec(KryoFieldEncoding.FAST);
    NextVersionManager manager = new NextVersionManager(codec, v2);
    TandemSession session = takenOver(manager, Map.of("profile", encoded(codec, EvolvingClasses.profile(v1, "ann"))));

    assertThat(session.getAttribute("profile")).hasToString("Profile[name=v1 only, visits=3, theme=ann]");
    assertThat(manager.getAttributesUnreadable()).isZero();
  }

  @Test
  void getAttribute_manySessionsWithTheSameBrokenClass_eachCounted_oneLinePerClass() {
    AttributeCodec codec = codec(KryoFieldEncoding.FAST);
    NextVersionManager manager = new NextVersionManager(codec, v2);
    for (int i = 0; i < 50; i++) {
      TandemSession session = takenOver(manager, Map.of("badge", encoded(codec, EvolvingClasses.badge(v1, "b" + i))));
      assertThat(session.getAttribute("badge")).isNull();
    }

    assertThat(manager.getAttributesUnreadable()).isEqualTo(50);
    assertThat(warnings).hasSize(1);
  }

  /**
   * JDK serialization follows added and removed fields only in a class that declares its serialVersionUID; a login
   * whose principal class changed without one is not restored (the user logs in again), and the session keeps its
   * attributes and loses its authentication type with its principal.
   */
  @Test
  void decodePrincipal_principalClassChanged_restoredOnlyWhenItDeclaresItsSerialVersionUid() throws Exception {
    LoginCodec logins = new LoginCodec(List.of("com.example.evolving.**"), CodecLimits.defaults());
    TandemSession writer = new TandemSession(new TandemManager());
    Blob stable = logins.encodePrincipal(
        new GenericPrincipal("carol", List.of("user"), EvolvingClasses.principal(v1, EvolvingClasses.STABLE, "carol")), writer);
    Blob plain = logins.encodePrincipal(
        new GenericPrincipal("dave", List.of("user"), EvolvingClasses.principal(v1, EvolvingClasses.PLAIN, "dave")), writer);

    Principal carol = logins.decodePrincipal("s1", stable, v2);
    Principal dave = logins.decodePrincipal("s2", plain, v2);

    assertThat(carol).isInstanceOf(GenericPrincipal.class);
    Principal user = ((GenericPrincipal) carol).getUserPrincipal();
    assertThat(user.getClass().getClassLoader()).isSameAs(v2);
    assertThat(user).hasToString("StablePrincipal[carol, department=null]");
    assertThat(dave).isNull();
    assertThat(warnings).singleElement().asString()
        .contains("Session [s2]", "without its login", "GenericPrincipal", EvolvingClasses.PLAIN, "serialVersionUID");

    AttributeCodec codec = codec(KryoFieldEncoding.COMPATIBLE);
    TandemSession session = new TandemSession(new NextVersionManager(codec, v2));
    SessionMetadata metadata = new SessionMetadata(1, 1, 1800, "FORM", plain, Map.of());
    session.restore(metadata, new HashMap<>(Map.of("user", encoded(codec, "dave"))), dave);

    assertThat(session.getPrincipal()).isNull();
    assertThat(session.getAuthType()).isNull();
    assertThat(session.getAttribute("user")).isEqualTo("dave");
  }

  private static AttributeCodec codec(KryoFieldEncoding encoding) {
    return new KryoAttributeCodec(APP, CodecLimits.defaults(), encoding);
  }

  private static EncodedValue encoded(AttributeCodec codec, Object value) {
    return new EncodedValue(codec.encode(value));
  }

  private static TandemSession takenOver(TandemManager manager, Map<String, Object> values) {
    TandemSession session = new TandemSession(manager);
    session.setId("s1", false);
    session.restore(SessionMetadata.created(1, 1800), new HashMap<>(values), null);
    return session;
  }
}
