package io.tandem.drill.realm;

import java.io.Serializable;
import java.security.Principal;
import java.util.Objects;

/**
 * A custom principal, as an application's own realm returns: not one of Tomcat's classes, listed in the poison
 * drill's {@code allowedClasses}. A user logged in with it must stay logged in, with it, across a failover.
 */
public final class DrillPrincipal implements Principal, Serializable {
  private static final long serialVersionUID = 1L;
  private final String name;
  private final String badge;
  private final String role;

  public DrillPrincipal(String name, String badge, String role) {
    this.name = Objects.requireNonNull(name, "name");
    this.badge = Objects.requireNonNull(badge, "badge");
    this.role = Objects.requireNonNull(role, "role");
  }

  /** The badge {@link DrillRealm} gives {@code user}: something only this class carries. */
  public static String badgeOf(String user) {
    return "badge-" + user;
  }

  @Override
  public String getName() {
    return name;
  }

  public String badge() {
    return badge;
  }

  public boolean hasRole(String wanted) {
    return role.equals(wanted);
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof DrillPrincipal p && p.name.equals(name) && p.badge.equals(badge) && p.role.equals(role);
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, badge, role);
  }

  /** {@code <name>/<badge>}: what the drill application prints after the class name. */
  @Override
  public String toString() {
    return name + "/" + badge;
  }
}
