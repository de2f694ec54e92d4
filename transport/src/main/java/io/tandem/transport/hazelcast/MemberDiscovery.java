package io.tandem.transport.hazelcast;

import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * How a node finds the other members of its cluster when it starts (and when Hazelcast's split-brain check looks
 * for a lost half): a fixed list, or Hazelcast's own Kubernetes discovery. Whatever finds them, membership itself
 * (who is in the view, who failed) is Hazelcast's heartbeat-based failure detection.
 *
 * <p>Each record checks its own values and throws {@link IllegalArgumentException} naming the field; the Tomcat
 * adapter reports every violation of the operator's attributes at once before building one.
 */
public sealed interface MemberDiscovery {

  /** A Kubernetes object name (DNS-1123 label): what a Service or namespace may be called. */
  Pattern KUBERNETES_NAME = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");

  /** A DNS name: dot-separated labels of letters, digits and '-'. */
  Pattern DNS_NAME = Pattern.compile("(?=.{1,253}$)[A-Za-z0-9]([-A-Za-z0-9]{0,61}[A-Za-z0-9])?(\\.[A-Za-z0-9]([-A-Za-z0-9]{0,61}[A-Za-z0-9])?)*\\.?");

  /**
   * Join over TCP the members listed, {@code host:port} (or {@code host}) of their membership ports. Every node
   * should list every node, itself included, so that any two of them find each other.
   */
  record Members(List<String> members) implements MemberDiscovery {
    public Members {
      Objects.requireNonNull(members, "members must not be null");
      if (members.isEmpty()) {
        throw new IllegalArgumentException("members must name at least one host:port");
      }
      for (String member : members) {
        if (member == null || member.isBlank()) {
          throw new IllegalArgumentException("members must not contain blank entries, got " + members);
        }
      }
      members = List.copyOf(members);
    }
  }

  /**
   * Kubernetes, DNS lookup: the A records of a headless Service ({@code clusterIP: None}) are the pods' addresses,
   * and every pod listens on the same membership port. Needs no access to the Kubernetes API. Hazelcast looks the
   * name up with the JVM's resolver ({@code InetAddress.getAllByName}), A/AAAA records only, no SRV.
   *
   * @param serviceDns e.g. {@code tandem.shop.svc.cluster.local}
   */
  record KubernetesDns(String serviceDns) implements MemberDiscovery {
    public KubernetesDns {
      Objects.requireNonNull(serviceDns, "serviceDns must not be null");
      if (!DNS_NAME.matcher(serviceDns).matches()) {
        throw new IllegalArgumentException("serviceDns must be a DNS name such as tandem.shop.svc.cluster.local, got '"
            + serviceDns + "'");
      }
    }
  }

  /**
   * Kubernetes, API: the endpoints of a Service, read from the Kubernetes API with the pod's service account
   * (which needs {@code get}/{@code list} on endpoints, endpointslices and pods).
   *
   * @param namespace the Service's namespace; null for the pod's own (read from its service-account mount)
   * @param serviceName the Service's name
   */
  record KubernetesApi(String namespace, String serviceName) implements MemberDiscovery {
    public KubernetesApi {
      if (namespace != null && !KUBERNETES_NAME.matcher(namespace).matches()) {
        throw new IllegalArgumentException("namespace must be a Kubernetes name (lower-case letters, digits and '-',"
            + " at most 63), got '" + namespace + "'");
      }
      Objects.requireNonNull(serviceName, "serviceName must not be null");
      if (!KUBERNETES_NAME.matcher(serviceName).matches()) {
        throw new IllegalArgumentException("serviceName must be a Kubernetes name (lower-case letters, digits and '-',"
            + " at most 63), got '" + serviceName + "'");
      }
    }
  }
}
