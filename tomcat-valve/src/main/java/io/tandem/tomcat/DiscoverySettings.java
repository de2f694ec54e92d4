package io.tandem.tomcat;

import io.tandem.transport.hazelcast.MemberDiscovery;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * How this node finds the others, from the {@code <Manager>} attributes {@code discovery}, {@code members} and
 * {@code kubernetes*}: every violation is reported at once, each naming the attribute, the value and what is
 * allowed, and the attributes of one way are refused with the other (a {@code members} list left beside {@code
 * discovery="kubernetes"} would otherwise be silently ignored).
 *
 * <ul>
 *   <li>{@code discovery="static"} (the default): the {@code members} list, {@code host:port} of every member's
 *       membership port.
 *   <li>{@code discovery="kubernetes"} with {@code kubernetesServiceDns}: a DNS lookup of a headless Service, whose
 *       addresses are joined on this node's {@code membershipPort} (the same on every pod).
 *   <li>{@code discovery="kubernetes"} with {@code kubernetesServiceName} (and {@code kubernetesNamespace}, else the
 *       pod's own): the Service's endpoints, read from the Kubernetes API.
 * </ul>
 *
 * <p>A blank value counts as not set, so that a property placeholder with an empty default can leave one out.
 */
final class DiscoverySettings {
  static final String STATIC = "static";
  static final String KUBERNETES = "kubernetes";

  private static final String DNS_EXAMPLE = "e.g. tandem.shop.svc.cluster.local";
  private static final String KUBERNETES_NAME_RULE = "lower-case letters, digits and '-', at most 63 characters";

  /** Stands for the discovery when the attributes are invalid: the manager refuses to start anyway. */
  private static final MemberDiscovery INVALID = new MemberDiscovery.Members(List.of("invalid"));

  private DiscoverySettings() {}

  static MemberDiscovery parse(Map<String, String> attributes, List<String> violations) {
    String discovery = value(attributes, "discovery");
    String mode = discovery == null ? STATIC : discovery.toLowerCase(Locale.ROOT);
    String members = value(attributes, "members");
    String serviceDns = value(attributes, "kubernetesServiceDns");
    String namespace = value(attributes, "kubernetesNamespace");
    String serviceName = value(attributes, "kubernetesServiceName");
    int before = violations.size();
    MemberDiscovery parsed;
    switch (mode) {
      case STATIC -> {
        for (String kubernetes : List.of("kubernetesServiceDns", "kubernetesNamespace", "kubernetesServiceName")) {
          if (value(attributes, kubernetes) != null) {
            violations.add(kubernetes + ": '" + attributes.get(kubernetes) + "' is only used with discovery=\""
                + KUBERNETES + "\", and discovery is \"" + STATIC + "\"; set discovery=\"" + KUBERNETES
                + "\" or remove it");
          }
        }
        parsed = members(members, violations);
      }
      case KUBERNETES -> {
        if (members != null) {
          violations.add("members: '" + members + "' is not used with discovery=\"" + KUBERNETES + "\" (the members"
              + " are looked up in Kubernetes); remove it, or set discovery=\"" + STATIC + "\"");
        }
        parsed = kubernetes(serviceDns, namespace, serviceName, violations);
      }
      default -> {
        violations.add("discovery: '" + discovery + "' is not one of " + STATIC + " (the members list), " + KUBERNETES
            + " (kubernetesServiceDns, or kubernetesServiceName with kubernetesNamespace)");
        parsed = INVALID;
      }
    }
    return violations.size() == before ? parsed : INVALID;
  }

  private static MemberDiscovery members(String list, List<String> violations) {
    List<String> members = list == null ? List.of()
        : Arrays.stream(list.split("[,\\s]+")).map(String::trim).filter(s -> !s.isEmpty()).toList();
    if (members.isEmpty()) {
      violations.add("members: must list the membership address (host:port) of at least one member, e.g."
          + " 10.0.0.1:5701,10.0.0.2:5701 (or set discovery=\"" + KUBERNETES + "\")");
    }
    for (String member : members) {
      if (!member.matches("[^:]+:\\d{1,5}")) {
        violations.add("members: '" + member + "' is not host:port");
      }
    }
    return members.isEmpty() ? INVALID : new MemberDiscovery.Members(members);
  }

  private static MemberDiscovery kubernetes(String serviceDns, String namespace, String serviceName,
      List<String> violations) {
    if (serviceDns == null && serviceName == null) {
      violations.add("discovery: \"" + KUBERNETES + "\" needs kubernetesServiceDns (DNS lookup of a headless Service, "
          + DNS_EXAMPLE + ") or kubernetesServiceName (Kubernetes API; kubernetesNamespace, else the pod's own)");
      return INVALID;
    }
    if (serviceDns != null && serviceName != null) {
      violations.add("kubernetesServiceDns/kubernetesServiceName: set only one of them ('" + serviceDns + "', '"
          + serviceName + "'): a DNS lookup, or the Kubernetes API");
      return INVALID;
    }
    if (serviceDns != null) {
      if (namespace != null) {
        violations.add("kubernetesNamespace: '" + namespace + "' is only used with kubernetesServiceName (the Kubernetes"
            + " API); with kubernetesServiceDns the DNS name names the namespace");
      }
      if (!MemberDiscovery.DNS_NAME.matcher(serviceDns).matches()) {
        violations.add("kubernetesServiceDns: '" + serviceDns + "' is not a DNS name (letters, digits, '-' and '.', no"
            + " scheme or port), " + DNS_EXAMPLE);
        return INVALID;
      }
      return new MemberDiscovery.KubernetesDns(serviceDns);
    }
    boolean valid = true;
    if (namespace != null && !MemberDiscovery.KUBERNETES_NAME.matcher(namespace).matches()) {
      violations.add("kubernetesNamespace: '" + namespace + "' is not a Kubernetes name (" + KUBERNETES_NAME_RULE + ")");
      valid = false;
    }
    if (!MemberDiscovery.KUBERNETES_NAME.matcher(serviceName).matches()) {
      violations.add("kubernetesServiceName: '" + serviceName + "' is not a Kubernetes name (" + KUBERNETES_NAME_RULE
          + ")");
      valid = false;
    }
    return valid ? new MemberDiscovery.KubernetesApi(namespace, serviceName) : INVALID;
  }

  /**
   * A warning when discovery looks for other pods but this node listens on loopback only (the default {@code
   * bindAddress}): every pod would find the others and reach none, and run alone. Not refused, since tests and
   * single-host setups run Kubernetes discovery on loopback on purpose.
   */
  static java.util.Optional<String> loopbackWarning(MemberDiscovery discovery, String bindAddress) {
    boolean loopback = bindAddress.startsWith("127.") || bindAddress.equals("::1") || bindAddress.equals("localhost");
    if (discovery instanceof MemberDiscovery.Members || !loopback) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.of("bindAddress '" + bindAddress + "' is a loopback address, but discovery=\""
        + KUBERNETES + "\" looks for other pods: they cannot reach this node, and it will run alone unless its peers"
        + " are on this host. Set bindAddress to the pod's address (e.g. bindAddress=\"${tandem.podIp}\" with"
        + " -Dtandem.podIp=$(POD_IP)).");
  }

  /** For the start-up line: what was configured, in the attributes' own words. */
  static String describe(MemberDiscovery discovery) {
    if (discovery instanceof MemberDiscovery.KubernetesDns dns) {
      return "discovery=kubernetes kubernetesServiceDns=" + dns.serviceDns();
    }
    if (discovery instanceof MemberDiscovery.KubernetesApi api) {
      return "discovery=kubernetes kubernetesNamespace=" + (api.namespace() == null ? "(the pod's)" : api.namespace())
          + " kubernetesServiceName=" + api.serviceName();
    }
    return "members=" + ((MemberDiscovery.Members) discovery).members();
  }

  private static String value(Map<String, String> attributes, String name) {
    String value = attributes.get(name);
    return value == null || value.isBlank() ? null : value.trim();
  }
}
