package io.tandem.core.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.core.codec.fixtures.Tier;
import java.net.URL;
import java.time.DayOfWeek;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.MonthDay;
import java.time.OffsetDateTime;
import java.time.Period;
import java.time.Year;
import java.time.YearMonth;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Hashtable;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Stack;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.Vector;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every JDK type in the built-in allowed set round-trips with both codecs under a filter that allows nothing
 * else (only the fixtures' enum, as an EnumMap key). Surefire runs with the opens Tomcat's catalina.sh adds, so
 * Kryo behaves as it does in Tomcat.
 */
class BaseSetRoundTripTest {
  private static final ClassFilter BASE_ONLY = ClassFilter.of(List.of("io.tandem.core.codec.fixtures.Tier"));
  private static final ClassLoader LOADER = BaseSetRoundTripTest.class.getClassLoader();

  static Stream<Arguments> values() {
    EnumMap<Tier, String> enumMap = new EnumMap<>(Tier.class);
    enumMap.put(Tier.GOLD, "g");
    IdentityHashMap<String, Integer> identity = new IdentityHashMap<>();
    identity.put("k", 1);
    Stack<String> stack = new Stack<>();
    stack.push("bottom");
    stack.push("top");
    TreeMap<String, Integer> sorted = new TreeMap<>(Map.of("a", 1, "b", 2));
    TreeSet<String> sortedSet = new TreeSet<>(List.of("a", "b"));
    List<Object> samples =
        List.of(
            new StringBuilder("builder"),
            new StringBuffer("buffer"),
            new Vector<>(List.of(1, 2)),
            stack,
            new Hashtable<>(Map.of("h", 1)),
            new ConcurrentHashMap<>(Map.of("c", 1)),
            new ConcurrentSkipListMap<>(Map.of("s", 1, "t", 2)),
            new ConcurrentSkipListSet<>(List.of("x", "y")),
            new CopyOnWriteArrayList<>(List.of("cow")),
            new CopyOnWriteArraySet<>(List.of("cows")),
            enumMap,
            identity,
            Collections.unmodifiableCollection(new ArrayList<>(List.of("uc"))),
            Collections.unmodifiableList(new ArrayList<>(List.of("ul"))),
            Collections.unmodifiableSet(new TreeSet<>(Set.of("us"))),
            Collections.unmodifiableMap(new HashMap<>(Map.of("um", 1))),
            Collections.unmodifiableSortedSet(sortedSet),
            Collections.unmodifiableSortedMap(sorted),
            Collections.unmodifiableNavigableSet(sortedSet),
            Collections.unmodifiableNavigableMap(sorted),
            Collections.synchronizedCollection(new ArrayList<>(List.of("sc"))),
            Collections.synchronizedList(new ArrayList<>(List.of("sl"))),
            Collections.synchronizedSet(new TreeSet<>(Set.of("ss"))),
            Collections.synchronizedMap(new HashMap<>(Map.of("sm", 1))),
            Collections.synchronizedSortedMap(sorted),
            Collections.emptyList(),
            Collections.emptySet(),
            Collections.emptyMap(),
            Collections.emptySortedSet(),
            Collections.emptyNavigableMap(),
            Collections.singleton("one"),
            Collections.singletonList("one"),
            Collections.singletonMap("one", 1),
            Collections.nCopies(3, "n"),
            List.of(),
            List.of("a"),
            List.of("a", "b", "c"),
            List.copyOf(new ArrayList<>(List.of("copy"))),
            Set.of("a", "b", "c"),
            Map.of("a", 1),
            Map.of("a", 1, "b", 2, "c", 3),
            LocalDateTime.of(2026, 1, 2, 3, 4),
            LocalTime.NOON,
            OffsetDateTime.of(2026, 1, 2, 3, 4, 5, 6, ZoneOffset.ofHours(2)),
            Period.ofDays(3),
            Year.of(2026),
            YearMonth.of(2026, 2),
            MonthDay.of(2, 29),
            ZoneOffset.UTC,
            ZoneId.of("Europe/Paris"),
            DayOfWeek.FRIDAY);
    return Stream.of(CodecKind.values()).flatMap(kind -> samples.stream().map(v -> Arguments.of(kind, v)));
  }

  @ParameterizedTest(name = "{0}: {1}")
  @MethodSource("values")
  void roundTrip_baseSetValue_isEqualUnderTheFilter(CodecKind kind, Object value) {
    AttributeCodec codec = AttributeCodecs.create(kind, BASE_ONLY, CodecLimits.defaults());

    assertThat(codec.refusalOf(value)).isEmpty();
    Object decoded = codec.decode(codec.encode(value), LOADER);

    assertThat(decoded.getClass()).isEqualTo(value.getClass());
    assertThat(comparable(decoded)).isEqualTo(comparable(value));
  }

  @Test
  void roundTrip_concurrentSkipListSetWithComparator_keepsTheOrder() {
    // Kryo's collection serializer would rebuild it with natural order: it goes through the JDK fallback.
    ConcurrentSkipListSet<String> reversed = new ConcurrentSkipListSet<>(Collections.reverseOrder());
    reversed.addAll(List.of("a", "b", "c"));
    ClassFilter filter = ClassFilter.of(List.of("java.util.Collections$ReverseComparator"));
    for (CodecKind kind : CodecKind.values()) {
      AttributeCodec codec = AttributeCodecs.create(kind, filter, CodecLimits.defaults());
      Object decoded = codec.decode(codec.encode(reversed), LOADER);
      assertThat(new ArrayList<Object>((Collection<?>) decoded)).as(kind.name()).containsExactly("c", "b", "a");
    }
  }

  @Test
  void filter_denyListedElementInBaseCollection_isStillRefused() throws Exception {
    Vector<Object> vector = new Vector<>(List.of(new URL("http://example.com/")));
    for (CodecKind kind : CodecKind.values()) {
      AttributeCodec codec = AttributeCodecs.create(kind, ClassFilter.of(List.of("*")), CodecLimits.defaults());
      assertThatThrownBy(() -> codec.encode(vector))
          .as(kind.name())
          .isInstanceOf(ClassNotAllowedException.class)
          .hasMessageContaining("java.net.URL")
          .hasMessageContaining("deny-list");
    }
  }

  /** A form with value equality: builders, identity maps and plain collection wrappers compare by identity. */
  private static Object comparable(Object value) {
    if (value instanceof CharSequence chars && !(value instanceof String)) {
      return chars.toString();
    }
    if (value instanceof IdentityHashMap<?, ?> map) {
      return new HashMap<>(map);
    }
    if (value instanceof Collection<?> c && !(value instanceof List<?>) && !(value instanceof Set<?>)) {
      return new ArrayList<>(c);
    }
    return value;
  }
}
