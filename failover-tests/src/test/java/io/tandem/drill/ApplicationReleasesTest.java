package io.tandem.drill;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The app-redeploy drill's two releases of Profile: one class name, release 2 without nickname and with badge. */
class ApplicationReleasesTest {
  @TempDir
  Path work;

  @Test
  void compile_eachRelease_isTheSameClassWithItsOwnFields() throws Exception {
    Class<?> first = load(ApplicationReleases.compile(work, 1));
    Class<?> second = load(ApplicationReleases.compile(work, 2));

    assertThat(first.getName()).isEqualTo("io.tandem.drill.values.Profile").isEqualTo(second.getName());
    assertThat(fields(first)).containsExactlyInAnyOrder("id", "nickname", "visits");
    assertThat(fields(second)).containsExactlyInAnyOrder("id", "visits", "badge");
    assertThat(first.getMethod("release").invoke(null)).isEqualTo(1);
    assertThat(second.getMethod("release").invoke(null)).isEqualTo(2);
    assertThat(first.getMethod("of", String.class, long.class).invoke(null, "u1-g0-7", 7L)).hasToString("r1:u1-g0-7:7:nick-7");
    assertThat(second.getMethod("of", String.class, long.class).invoke(null, "u1-g0-7", 7L)).hasToString("r2:u1-g0-7:7:badge-7");
    assertThat(second.getConstructor().newInstance()).hasToString("r2:null:0:none");
  }

  private static Class<?> load(Path classes) throws Exception {
    URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()}, ClassLoader.getPlatformClassLoader());
    return Class.forName("io.tandem.drill.values.Profile", true, loader);
  }

  private static String[] fields(Class<?> type) {
    return Arrays.stream(type.getDeclaredFields()).filter(f -> !Modifier.isStatic(f.getModifiers())).map(Field::getName)
        .toArray(String[]::new);
  }
}
