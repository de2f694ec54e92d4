package io.tandem.benchmarks;

import io.tandem.core.session.SessionMetadata;
import io.tandem.core.session.SessionSource;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The session of the growing-session workload (Web Performance's 2004 servlet report): each page adds an
 * attribute of about 1 KiB and lists them all. Values are Strings, which the default mutation policy can prove
 * immutable, so listing them does not count as changing them.
 */
final class GrowingSession implements SessionSource {
  static final int VALUE_CHARS = 1024;

  private final Map<String, Object> attributes = new LinkedHashMap<>();
  private SessionMetadata metadata;

  GrowingSession(long now) {
    metadata = SessionMetadata.created(now, 1800);
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
