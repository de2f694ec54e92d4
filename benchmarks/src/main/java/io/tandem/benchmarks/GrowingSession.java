package io.tandem.benchmarks;

import io.tandem.core.session.SessionMetadata;
import io.tandem.core.session.SessionSource;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The session of the growing-session workload (Web Performance's 2004 servlet report): each page adds an
 * attribute of about 1 KiB and lists them all. Values are Strings (which the default mutation policy can prove
 * immutable, so listing them does not count as changing them) or maps (which it cannot, so listing them does).
 */
final class GrowingSession implements SessionSource {
  static final int VALUE_CHARS = 1024;

  private final Map<String, Object> attributes = new LinkedHashMap<>();
  private SessionMetadata metadata;

  GrowingSession(long now) {
    metadata = SessionMetadata.created(now, 1800);
  }

  /** About 1 KiB as a map of small values: what a form or a shopping cart line typically looks like. */
  static java.util.HashMap<String, Object> mapValue(int page) {
    java.util.HashMap<String, Object> map = new java.util.HashMap<>();
    for (int i = 0; i < 16; i++) {
      map.put("field-" + i, i % 2 == 0 ? (Object) ((long) page * 1000 + i) : "value " + i + " of page " + page + " ....................");
    }
    return map;
  }

  static String value(int page) {
    StringBuilder text = new StringBuilder(VALUE_CHARS);
    while (text.length() < VALUE_CHARS) {
      text.append("page ").append(page).append(" of the growing session; ");
    }
    text.setLength(VALUE_CHARS);
    return text.toString();
  }

  void put(String name, Object value) {
    attributes.put(name, value);
  }

  void access(long now) {
    metadata = metadata.withLastAccessedTime(now);
  }

  @Override
  public SessionMetadata metadata() {
    return metadata;
  }

  @Override
  public Set<String> attributeNames() {
    return Set.copyOf(attributes.keySet());
  }

  @Override
  public Object attribute(String name) {
    return attributes.get(name);
  }
}
