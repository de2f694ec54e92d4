package io.tandem.drill.values;

import java.io.Serializable;

/**
 * Release 1 of the app-redeploy drill's session class (compiled by the drill into release 1 of the application).
 * Release 2 (../2/Profile.java) removes {@code nickname} and adds {@code badge}; both keep {@code id} and {@code visits}.
 */
public final class Profile implements Serializable {
  private static final long serialVersionUID = 1L;
  private final String id;
  private final String nickname;
  private final long visits;

  private Profile(String id, String nickname, long visits) {
    this.id = id;
    this.nickname = nickname;
    this.visits = visits;
  }

  /** The profile a write of {@code id} numbered {@code visits} stores. */
  public static Profile of(String id, long visits) {
    return new Profile(id, "nick-" + visits, visits);
  }

  /** The release of the application this class belongs to (a method, so a page compiled against it is not inlined). */
  public static int release() {
    return 1;
  }

  /** One token: {@code r1:<id>:<visits>:<nickname>}. */
  @Override
  public String toString() {
    return "r1:" + id + ":" + visits + ":" + nickname;
  }
}
