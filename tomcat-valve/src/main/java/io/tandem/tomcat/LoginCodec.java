package io.tandem.tomcat;

import io.tandem.core.codec.ClassFilter;
import io.tandem.core.codec.CodecException;
import io.tandem.core.codec.CodecLimits;
import io.tandem.core.codec.JdkAttributeCodec;
import io.tandem.core.logging.RateLimitedLog;
import io.tandem.core.session.Blob;
import java.io.Serializable;
import java.security.Principal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.juli.logging.Log;
import org.apache.juli.logging.LogFactory;

/**
 * What keeps a user logged in after a failover, as bytes: the authenticated principal and Tomcat's session notes,
 * through the JDK codec under a class filter of their own (Tomcat's realm, authenticator and buffer classes, and the
 * application's {@code allowedClasses}, which covers a custom or JAAS principal). A session asks only when its
 * principal or a note changed (see {@link EncodedLogin}).
 *
 * <p>A principal or note this node cannot decode after a takeover (its class is missing here, or changed: JDK
 * serialization follows added and removed fields only in a class that declares its {@code serialVersionUID}) is left
 * out: the user logs in again, and the session keeps its attributes. A principal is never half-restored: a login
 * whose class changed incompatibly is not trusted.
 *
 * <p>Implementation notes: thread-safe. {@code principals} (a principal object shared by sessions, as single sign-on
 * does, is encoded once) is a synchronized weak map, consulted at login only; {@code classesWarned} is concurrent;
 * {@code unreadable} locks itself.
 */
final class LoginCodec {
  /** Logged as the manager, where operators look for these lines. */
  private static final Log log = LogFactory.getLog(TandemManager.class);
  private static final List<String> CONTAINER_CLASSES =
      List.of("org.apache.catalina.realm.**", "org.apache.catalina.authenticator.**", "org.apache.tomcat.util.buf.**",
          "jakarta.servlet.http.Cookie", "javax.security.auth.**");

  private final JdkAttributeCodec codec;
  private final Map<Principal, Blob> principals = Collections.synchronizedMap(new WeakHashMap<>());
  private final Set<String> classesWarned = ConcurrentHashMap.newKeySet();
  /** A deploy that changed the principal's class makes every session's login unreadable: one line per class per 10 s. */
  private final RateLimitedLog unreadable = new RateLimitedLog(System.getLogger(TandemManager.class.getName()));

  LoginCodec(List<String> allowedClasses, CodecLimits limits) {
    List<String> classes = new ArrayList<>(CONTAINER_CLASSES);
    classes.addAll(allowedClasses);
    this.codec = new JdkAttributeCodec(ClassFilter.of(classes), limits);
  }

  /**
   * The principal's bytes, or null when there is none or it cannot be replicated; then the request that logged it
   * in is answered 500 in SYNC (reported once per principal through {@code session}) and the class is logged once.
   */
  Blob encodePrincipal(Principal principal, TandemSession session) {
    if (principal == null) {
      return null;
    }
    Blob cached = principals.get(principal);
    if (cached != null) {
      return cached;
    }
    try {
      Blob encoded = codec.encode(principal);
      principals.put(principal, encoded);
      return encoded;
    } catch (CodecException e) {
      String why = "the authenticated principal of class [" + principal.getClass().getName()
          + "] cannot be replicated (add it to allowedClasses): " + e.getMessage();
      if (classesWarned.add(principal.getClass().getName())) {
        log.warn("Tandem: " + why); // once per class
      }
      if (session.firstRefusalOf(principal)) {
        RequestTracking.refused(why); // the login request is answered 500 in SYNC; later ones are not
      }
      return null;
    }
  }

  /** A note's bytes; empty when it is not serializable or cannot be replicated (logged). */
  Optional<Blob> encodeNote(Object note) {
    if (!(note instanceof Serializable)) {
      return Optional.empty();
    }
    try {
      return Optional.of(codec.encode(note));
    } catch (CodecException e) {
      log.warn("A session note of class " + note.getClass().getName() + " is not replicated: " + e.getMessage());
      return Optional.empty();
    }
  }

  /**
   * The principal a takeover restores to session {@code sessionId}; null when there was none or it cannot be restored
   * (logged, naming the session and the principal's class).
   */
  Principal decodePrincipal(String sessionId, Blob blob, ClassLoader loader) {
    if (blob == null) {
      return null;
    }
    try {
      return (Principal) codec.decode(blob, loader);
    } catch (CodecException | ClassCastException e) {
      String type = className(blob);
      unreadable.warn("principal " + type, "Session [" + sessionId + "] was taken over without its login: its"
          + " principal of class [" + type + "] cannot be restored on this node (" + e.getMessage() + "). The user"
          + " must log in again; the session keeps its attributes. A principal class that changes between deploys"
          + " must declare its serialVersionUID");
      return null;
    }
  }

  /** A note a takeover restores; empty when it cannot be restored (logged, naming the session, note and class). */
  Optional<Object> decodeNote(String sessionId, String name, Blob blob, ClassLoader loader) {
    try {
      return Optional.of(codec.decode(blob, loader));
    } catch (CodecException e) {
      String type = className(blob);
      unreadable.warn("note " + type, "Session [" + sessionId + "] note [" + name + "] of class [" + type
          + "] cannot be restored on this node and was left out: " + e.getMessage());
      return Optional.empty();
    }
  }

  private String className(Blob blob) {
    return codec.className(blob).orElse("unknown");
  }
}
