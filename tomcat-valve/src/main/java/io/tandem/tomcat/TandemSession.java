package io.tandem.tomcat;

import io.tandem.core.replicator.FlushOutcome;
import io.tandem.core.replicator.OwnedSession;
import io.tandem.core.session.Blob;
import io.tandem.core.session.SessionMetadata;
import io.tandem.core.session.SessionSource;
import java.security.Principal;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import io.tandem.core.codec.CodecException;
import io.tandem.core.session.EncodedValue;
import jakarta.servlet.http.HttpSessionActivationListener;
import jakarta.servlet.http.HttpSessionEvent;
import org.apache.catalina.session.StandardSession;
import org.apache.juli.logging.Log;
import org.apache.juli.logging.LogFactory;

/**
 * A Tomcat session that tells the replication engine what changed: every {@code setAttribute} and {@code
 * removeAttribute}, every read (for the mutation policy), invalidation and expiry. The engine reads it back through
 * {@link SessionSource} when it flushes.
 *
 * <p>A session taken over from another node keeps each attribute as its bytes ({@link EncodedValue}) until the
 * application first reads it, so a takeover costs no deserialization of values nobody asks for. Implementation
 * notes: Tomcat's attribute map is concurrent; a value is decoded by whichever thread reads it first, without a lock,
 * and installed with a compare-and-replace, so every reader sees the one object that won and a value set meanwhile
 * is never overwritten by a decoded older one. The engine reads a value still encoded as its bytes and replicates
 * them unchanged. Where Tomcat hands an old value to listeners (replace, remove, expiry with notification), it is
 * decoded first, so listeners never see bytes; an {@code HttpSessionActivationListener} value is told it activated
 * when it is decoded, as Tomcat tells every value at activation.
 */
public class TandemSession extends StandardSession implements SessionSource {
  private static final long serialVersionUID = 1L;
  private static final Log LOG = LogFactory.getLog(TandemSession.class);

  private final transient TandemManager tandem;
  /** Set when another node owns this session now: it is dropped here without telling the engine. */
  private transient volatile boolean detached;
  private transient volatile boolean invalidating;
  /**
   * The engine's handle on this session, set once the engine owns it (at creation or takeover): the flush at the
   * end of each request goes straight to it, and still finds it, fenced, if another node took the session over
   * while the request ran.
   */
  private transient volatile OwnedSession handle;
  /** The last principal that could not be replicated, so that only the request that logged it in fails. */
  private transient volatile Principal refusedPrincipal;
  /** The id without its jvmRoute, stripped once per id (set with it in {@link #setId(String, boolean)}). */
  private transient volatile String baseId;
  /** The principal and notes as the last flush encoded them, reused while they are the same objects. */
  private transient volatile EncodedLogin login = EncodedLogin.NONE;
  private final transient EncodedLogin.Encoder loginEncoder = new EncodedLogin.Encoder() {
    @Override
    public Blob principal(Principal principal) {
      return tandem.loginCodec().encodePrincipal(principal, TandemSession.this);
    }

    @Override
    public Optional<Blob> note(Object note) {
      return tandem.loginCodec().encodeNote(note);
    }
  };

  TandemSession(TandemManager manager) {
    super(manager);
    this.tandem = manager;
  }

  /** The id without a jvmRoute suffix: the name the engine and every other node know the session by. */
  String baseId() {
    return baseId;
  }

  /** Strips the route once per id, after Tomcat re-indexed the session under it. */
  @Override
  public void setId(String id, boolean notify) {
    super.setId(id, notify);
    baseId = id == null ? null : TandemManager.stripRoute(id);
  }

  /**
   * Whether the engine still owns this session here: through the handle, without a lookup. False before the engine
   * had it, and once it was fenced (another node took it over), ended or handed away.
   */
  boolean ownedHere() {
    OwnedSession owned = handle;
    return owned != null && !detached && tandem.ownsHandle(owned);
  }

  /** Whether Tandem dropped this copy (another node owns the session now), as opposed to the application ending it. */
  boolean droppedByTandem() {
    return detached;
  }

  /** Whether {@code principal} was not refused before on this session (its login is the request that fails). */
  boolean firstRefusalOf(Principal principal) {
    if (principal == refusedPrincipal) {
      return false;
    }
    refusedPrincipal = principal;
    return true;
  }

  void bind(OwnedSession handle) {
    this.handle = handle;
  }

  OwnedSession handle() {
    return handle;
  }

  /**
   * Refuses, where the application sees it, a value whose class Tandem will not replicate, as Tomcat refuses a
   * non-serializable value in a distributable application; a nested value that cannot be replicated is found at
   * the end of the request instead (SYNC answers 500 then).
   */
  @Override
  public void setAttribute(String name, Object value, boolean notify) {
    if (value != null) {
      tandem.refusalOf(value).ifPresent(why -> {
        throw new IllegalArgumentException("Session attribute [" + name + "] of class [" + value.getClass().getName()
            + "] cannot be replicated by Tandem: " + why);
      });
    }
    if (notify) {
      decodeForListeners(name); // listeners are handed the value replaced, never its bytes
    }
    super.setAttribute(name, value, notify);
    if (value != null) {
      tandem.attributeChanged(this, name);
    }
  }

  /** Tomcat's own check for distributable applications, answered by the same rule. */
  @Override
  public boolean isAttributeDistributable(String name, Object value) {
    return value == null || tandem.refusalOf(value).isEmpty();
  }

  /** Tomcat calls this each time a request obtains the session: the request's valve flushes what it records. */
  @Override
  public void access() {
    super.access();
    RequestTracking.accessed(this);
  }

  @Override
  public void removeAttribute(String name, boolean notify) {
    if (notify) {
      decodeForListeners(name);
    }
    boolean had = getAttributeInternal(name) != null;
    super.removeAttribute(name, notify);
    if (had) {
      tandem.attributeChanged(this, name);
    }
  }

  @Override
  public Object getAttribute(String name) {
    RequestTracking.read(name);
    Object value = super.getAttribute(name);
    return value instanceof EncodedValue encoded ? decoded(name, encoded) : value;
  }

  /**
   * The value of attribute {@code name}, held as {@code encoded} until now: decoded and installed in its place
   * unless another thread installed a value first (then that value). A value that cannot be decoded (its class is
   * missing here, not allowed, or changed incompatibly by a deploy) is dropped alone, here and (as a change) on the
   * buddy, as it could not be restored; the session keeps its other attributes, and the manager logs and counts it.
   */
  private Object decoded(String name, EncodedValue encoded) {
    Object value;
    try {
      value = tandem.decodeAttribute(encoded.bytes());
    } catch (CodecException e) {
      if (attributes.remove(name, encoded)) {
        tandem.attributeUnreadable(baseId, name, encoded.bytes(), e);
        tandem.attributeChanged(this, name);
      }
      return current(name);
    }
    if (!attributes.replace(name, encoded, value)) {
      return current(name); // decoded or set by another thread meanwhile: theirs is the value
    }
    if (value instanceof HttpSessionActivationListener activated) {
      try {
        activated.sessionDidActivate(new HttpSessionEvent(getSession()));
      } catch (RuntimeException e) {
        LOG.error("Session [" + baseId + "] attribute [" + name + "] failed on sessionDidActivate", e);
      }
    }
    return value;
  }

  private Object current(String name) {
    Object now = attributes.get(name);
    return now instanceof EncodedValue again ? decoded(name, again) : now;
  }

  /** Decodes attribute {@code name} if it is still encoded, without counting it as read by the request. */
  private void decodeForListeners(String name) {
    if (name != null && attributes.get(name) instanceof EncodedValue encoded) {
      decoded(name, encoded);
    }
  }

  private Object getAttributeInternal(String name) {
    return name == null ? null : attributes.get(name);
  }

  @Override
  public void invalidate() {
    invalidating = true;
    super.invalidate();
  }

  @Override
  public void expire(boolean notify) {
    boolean tellEngine = !detached && isValidInternal();
    String base = baseId();
    if (notify && isValidInternal()) {
      for (String name : attributes.keySet()) {
        decodeForListeners(name); // the values are unbound with notification: listeners see objects
      }
    }
    super.expire(notify);
    if (tellEngine && base != null) {
      RequestTracking.mustConfirm(ended(base));
    }
  }

  /** Through the handle when the engine gave one (it is never confused with a later owner's copy), else by id. */
  private CompletableFuture<FlushOutcome> ended(String base) {
    OwnedSession owned = handle;
    return owned != null ? tandem.ended(owned, invalidating) : tandem.ended(base, invalidating);
  }

  /**
   * Whether what a request changed in this copy is kept by no engine: Tandem dropped it (another node owns the
   * session), or it is live but the engine never owned it. Not a session the application ended: its end is
   * confirmed on its own ({@link RequestTracking#mustConfirm}).
   */
  boolean keptNowhere() {
    return detached || isValidInternal();
  }

  /** Drops this copy without listeners and without telling the engine (another node owns the session). */
  void detach() {
    detached = true;
    expire(false);
  }

  /**
   * Restores state from a replica without firing listeners or marking anything changed; {@code values} may hold
   * {@link EncodedValue}s, decoded on first read. A null {@code principal} (none, or one that could not be restored)
   * leaves no authentication type either.
   */
  void restore(SessionMetadata metadata, Map<String, Object> values, Principal principal) {
    this.creationTime = metadata.creationTime();
    this.lastAccessedTime = metadata.lastAccessedTime();
    this.thisAccessedTime = metadata.lastAccessedTime();
    this.maxInactiveInterval = metadata.maxInactiveIntervalSeconds();
    this.authType = principal == null ? null : metadata.authType();
    this.principal = principal;
    this.isNew = false;
    this.isValid = true;
    attributes.putAll(values);
  }

  // ---- SessionSource --------------------------------------------------------------------------------------------

  /** Encodes the principal and notes only when they changed since the last flush (see {@link EncodedLogin}). */
  @Override
  public SessionMetadata metadata() {
    EncodedLogin current = login.refresh(getPrincipal(), notes, loginEncoder);
    login = current;
    return new SessionMetadata(getCreationTimeInternal(), getThisAccessedTimeInternal(), getMaxInactiveInterval(),
        getAuthType(), current.principalBlob(), current.notes());
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
