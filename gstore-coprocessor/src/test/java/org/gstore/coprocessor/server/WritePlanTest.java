package org.gstore.coprocessor.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.NodeId;
import org.gstore.common.protocol.StateChange;
import org.gstore.common.protocol.Step;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class WritePlanTest {
  private static final NodeId NODE = new NodeId("n1");

  private static StateChange free(String row) {
    return new StateChange.RemoveOwner(Key.of("t", row));
  }

  private static StateChange reserve(long upTo) {
    return new StateChange.ReserveUids(NODE, upTo);
  }

  private static Step step(List<StateChange> changes, List<StateChange> deferred) {
    return new Step(changes, deferred, List.of(), List.of());
  }

  @Test
  void aDeferredChangeWaitsForTheNextBatchWhichWritesItFirst() {
    WritePlan first = WritePlan.of(List.of(), List.of(step(List.of(free("a")), List.of(free("b")))), false);
    assertThat(first.now()).containsExactly(free("a"));
    assertThat(first.later()).containsExactly(free("b"));

    WritePlan second = WritePlan.of(first.later(), List.of(step(List.of(free("c")), List.of())), false);
    assertThat(second.now()).containsExactly(free("b"), free("c"));
    assertThat(second.later()).isEmpty();
  }

  @Test
  void aDeferredChangeToATargetTheBatchWritesAnywayIsWrittenNowAndTheLastDecisionWins() {
    WritePlan plan = WritePlan.of(List.of(), List.of(
        step(List.of(reserve(10)), List.of()),
        step(List.of(), List.of(reserve(20)))), false);
    assertThat(plan.now()).containsExactly(reserve(20));
    assertThat(plan.later()).isEmpty();
  }

  @Test
  void aLaterChangeToADeferredTargetIsWrittenNowInItsPlace() {
    WritePlan plan = WritePlan.of(List.of(), List.of(
        step(List.of(), List.of(reserve(10))),
        step(List.of(reserve(20)), List.of())), false);
    assertThat(plan.now()).containsExactly(reserve(20));
    assertThat(plan.later()).isEmpty();
  }

  @Test
  void aCarriedChangeOverwrittenByTheBatchIsWrittenOnceWithTheNewValue() {
    WritePlan plan = WritePlan.of(List.of(reserve(10)), List.of(step(List.of(), List.of(reserve(20)))), false);
    assertThat(plan.now()).containsExactly(reserve(20));
    assertThat(plan.later()).isEmpty();
  }

  @Test
  void aBarrierWritesEverything() {
    WritePlan plan = WritePlan.of(List.of(free("a")), List.of(step(List.of(), List.of(free("b")))), true);
    assertThat(plan.now()).containsExactly(free("a"), free("b"));
    assertThat(plan.later()).isEmpty();
  }
}
