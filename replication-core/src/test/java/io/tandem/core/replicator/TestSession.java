package io.tandem.core.replicator;

import io.tandem.core.session.SessionMetadata;
import io.tandem.core.session.SessionSource;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** A container session as a test drives it: attributes in a map, changes reported to the engine like Tomcat would. */
final class TestSession implements SessionSource {
  private final ReplicationEngine engine;
  private final Map<String, Object> attributes = new ConcurrentHashMap<>();
  private volatile String id;
  private volatile SessionMetadata metadata;
  /** The engine's handle, as a container session keeps it. */
  private volatile OwnedSession handle;

  TestSession(ReplicationEngine engine, String id, SessionMetadata metadata) {
    this.engine = engine;
    this.id = id;
    this.metadata = metadata;
  }

  String id() {
    return id;
  }

  void bind(OwnedSession handle) {
    this.handle = handle;
  }

  OwnedSession handle() {
    return handle;
  }

  void changeId(String newId) {
    String old = id;
    id = newId;
    engine.changeId(old, newId);
  }

  void setAttribute(String name, Object value) {
    attributes.put(name, value);
    engine.attributeChanged(handle, name);
  }

  void removeAttribute(String name) {
    attributes.remove(name);
    engine.attributeChanged(handle, name);
  }

  Object getAttribute(String name, Set<String> reads) {
    reads.add(name);
    return attributes.get(name);
  }

  void access(long now) {
    metadata = metadata.withLastAccessedTime(now);
  }

  Map<String, Object> attributes() {
    return attributes;
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
