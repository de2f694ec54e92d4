package io.tandem.tomcat;

import java.util.concurrent.atomic.LongAdder;

/**
 * What a node could not restore of the sessions it took over, by kind; on JMX. Written by request threads (the one
 * that first reads an attribute, or takes a session over), lock-free; read by JMX.
 */
final class RestoreCounters {
  /**
   * Attribute values dropped because this node cannot decode them (their class is missing here, not allowed, or
   * changed in a way the encoding cannot follow); each session kept its other attributes.
   */
  final LongAdder attributesUnreadable = new LongAdder();
  /**
   * Sessions taken over without their login, or without a note of it (the principal's or a note's class is missing
   * here, not allowed, or changed incompatibly): their users must log in again; the sessions kept their attributes.
   */
  final LongAdder loginsUnreadable = new LongAdder();
}
