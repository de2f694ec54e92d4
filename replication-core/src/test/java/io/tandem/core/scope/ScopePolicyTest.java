package io.tandem.core.scope;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.core.config.ReplicationScope;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The scope table of the README, row by row. */
class ScopePolicyTest {

  @ParameterizedTest
  @EnumSource(ReplicationScope.class)
  void plan_untouchedSession_sendsNothing(ReplicationScope scope) {
    assertThat(ScopePolicy.plan(scope, false, Set.of(), false, true)).isEqualTo(FlushPlan.NOTHING);
  }

  @ParameterizedTest
  @EnumSource(ReplicationScope.class)
  void plan_buddyNeedsFull_sendsFullWhateverTheScope(ReplicationScope scope) {
    assertThat(ScopePolicy.plan(scope, true, Set.of("a"), false, true)).isEqualTo(FlushPlan.FULL);
  }

  @Test
  void plan_sessionScope_sendsFullAfterEveryAccess() {
    assertThat(ScopePolicy.plan(ReplicationScope.SESSION, true, Set.of(), false, false)).isEqualTo(FlushPlan.FULL);
  }

  @Test
  void plan_modifiedSession_touchesOnReadAndSendsFullOnChange() {
    assertThat(ScopePolicy.plan(ReplicationScope.MODIFIED_SESSION, true, Set.of(), false, false))
        .isEqualTo(FlushPlan.TOUCH);
    assertThat(ScopePolicy.plan(ReplicationScope.MODIFIED_SESSION, true, Set.of("a"), false, false))
        .isEqualTo(FlushPlan.FULL);
  }

  @Test
  void plan_modifiedAttribute_touchesOnReadAndSendsOnlyChangedNames() {
    assertThat(ScopePolicy.plan(ReplicationScope.MODIFIED_ATTRIBUTE, true, Set.of(), false, false))
        .isEqualTo(FlushPlan.TOUCH);
    assertThat(ScopePolicy.plan(ReplicationScope.MODIFIED_ATTRIBUTE, true, Set.of("a", "b"), false, false))
        .isEqualTo(FlushPlan.delta(Set.of("a", "b")));
    assertThat(ScopePolicy.plan(ReplicationScope.MODIFIED_ATTRIBUTE, false, Set.of(), true, false))
        .isEqualTo(FlushPlan.delta(Set.of()));
  }
}
