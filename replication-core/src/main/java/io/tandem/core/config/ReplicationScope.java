package io.tandem.core.config;

/** What a request's flush sends to the buddy. See the README's scope table. */
public enum ReplicationScope {
  /** The whole session after every request that accessed it. */
  SESSION,
  /** The whole session after a request that changed it; a touch otherwise. */
  MODIFIED_SESSION,
  /** Only the attributes the request set or removed (and metadata); a touch otherwise. */
  MODIFIED_ATTRIBUTE
}
