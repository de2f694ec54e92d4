package io.tandem.drill.values;

import java.io.Serializable;

/**
 * Release 2 of the app-redeploy drill's session class: {@code nickname} (release 1's) is gone and {@code badge} is
 * new, set to "none" by the no-arg constructor Kryo uses when it reads a value written by release 1.
 */
public final class Profile implements Serializable {
  private static final long serialVersionUID = 1L;
  private String id;
  private long visits;
  private String badge = "none";

  public Profile() {}

  /** The profile a write of {@code id} numbered {@code visits} stores. */
  public static Profile of(String id, long visits) {
    Profile profile = new Profile();
    profile.id = id;
    profile.visits = visits;
    profile.badge = "badge-" + visits;
    return profile;
  }

  /** The release of the application this class belongs to. */
  public static int release() {
    return 2;
  }

  /** One token: {@code r2:<id>:<visits>:<badge>}. */
  @Override
  public String toString() {
    return "r2:" + id + ":" + visits + ":" + badge;
  }
}
