package io.tandem.drill.realm;

import java.security.Principal;
import org.apache.catalina.realm.MemoryRealm;

/**
 * Tomcat's {@link MemoryRealm} returning a {@link DrillPrincipal}, as an application realm with its own principal
 * class does. Lives in {@code $CATALINA_BASE/lib} (a realm is loaded by the server's class loader), in a jar the
 * drill writes there.
 */
public class DrillRealm extends MemoryRealm {

  @Override
  public Principal authenticate(String username, String credentials) {
    Principal checked = super.authenticate(username, credentials);
    return checked == null ? null : new DrillPrincipal(checked.getName(), DrillPrincipal.badgeOf(checked.getName()), "drill");
  }

  @Override
  protected boolean hasRoleInternal(Principal principal, String role) {
    if (principal instanceof DrillPrincipal drill) {
      return drill.hasRole(role);
    }
    return super.hasRoleInternal(principal, role);
  }
}
