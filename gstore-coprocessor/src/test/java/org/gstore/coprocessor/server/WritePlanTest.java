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
  private static StateChange free(String row) {
    return new StateChange.RemoveOwner(Key.of("t", row));
  }

  private static StateChange reserve(String node, long upTo) {
    return new StateChange.ReserveUids(new NodeId(node), upTo);
  }

  private static Step step(List<StateChange> changes, List<StateChange> deferred) {
    return new Step(changes, deferred, List.of(), List.of(), List.of());
  }

  private static WritePlan plan(List<StateChange> carried, boolean flush, Step... steps) {
    return WritePlan.of(carried, List.of(steps), flush, StateTables::tableOf);
  }

  @Test
  void aDeferredChangeRidesAlongWithTheNextBatchThatWritesItsTable() {
    WritePlan first = plan(List.of(), false, step(List.of(reserve("n1", 10)), List.of(free("b"))));
    assertThat(first.now()).as("another table: no extra call in front of the step's effects")
        .containsExactly(reserve("n1", 10));
    assertThat(first.later()).containsExactly(free("b"));

    WritePlan other = plan(first.later(), false, step(List.of(reserve("n1", 20)), List.of()));
    assertThat(other.now()).containsExactly(reserve("n1", 20));
    assertThat(other.later()).containsExactly(free("b"));

    WritePlan same = plan(other.later(), false, step(List.of(free("c")), List.of()));
    assertThat(same.now()).containsExactlyInAnyOrder(free("b"), free("c"));
    assertThat(same.later()).isEmpty();
  }

  @Test
  void aFlushOrABarrierWritesEverything() {
    WritePlan plan = plan(List.of(free("a")), true, step(List.of(), List.of(reserve("n1", 10))));
    assertThat(plan.now()).containsExactlyInAnyOrder(free("a"), reserve("n1", 10));
    assertThat(plan.later()).isEmpty();
  }

  @Test
  void aDeferredChangeToATargetTheBatchWritesAnywayIsWrittenNowAndTheLastDecisionWins() {
    WritePlan plan = plan(List.of(), false,
        step(List.of(reserve("n1", 10)), List.of()),
        step(List.of(), List.of(reserve("n1", 20))));
    assertThat(plan.now()).containsExactly(reserve("n1", 20));
    assertThat(plan.later()).isEmpty();
  }

  @Test
  void aLaterChangeToADeferredTargetReplacesIt() {
    WritePlan plan = plan(List.of(), false,
        step(List.of(), List.of(reserve("n1", 10))),
        step(List.of(reserve("n1", 20)), List.of()));
    assertThat(plan.now()).containsExactly(reserve("n1", 20));
    assertThat(plan.later()).isEmpty();

    WritePlan carried = plan(List.of(reserve("n1", 10)), false, step(List.of(free("a")), List.of(reserve("n1", 20))));
    assertThat(carried.now()).containsExactly(free("a"));
    assertThat(carried.later()).as("one pending write per target, the newest").containsExactly(reserve("n1", 20));
  }
}
