package io.tandem.core.replicator;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The field is read and written only while holding the named lock. Error Prone's {@code GuardedBy} check matches
 * this annotation by its simple name, so it is enforced once the check runs in the build; until then it documents.
 * Kept local: core depends on nothing but Kryo.
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target({ElementType.FIELD, ElementType.METHOD})
@interface GuardedBy {
  String value();
}
