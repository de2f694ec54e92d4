/**
 * One node runtime per cluster per JVM: the transport and the membership member a node has once, shared by every
 * context (application) that names the cluster. Each context runs its own engine on a context-scoped view of both
 * ({@link io.tandem.core.node.ContextTransport}, {@link io.tandem.core.node.ContextMembership}); every request names its
 * context on the wire, and a context's view holds only the members that run it ({@link
 * io.tandem.core.node.ContextDirectory}).
 */
package io.tandem.core.node;
