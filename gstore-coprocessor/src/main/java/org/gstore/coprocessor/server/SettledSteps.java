package org.gstore.coprocessor.server;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * How far the {@link StepWriter}'s steps have settled: written (or, should a write fail unexpectedly, reported to
 * their clients), let out, and in the state tables a region's next host loads from. The writer thread records, after
 * each batch, through which step everything is written and what its store had logged by then; the step is settled
 * once the store has that much in its tables ({@link StepWriter.Store#inTables(long)}).
 */
final class SettledSteps {
  /** Written through {@code step}, the store's {@code mark} covering it. */
  private record Written(long step, long mark) {}

  private final Deque<Written> unsettled = new ArrayDeque<>();
  private long settled;

  /** Everything of steps 1..{@code step} is written and out; the store had logged up to {@code mark} by then. */
  synchronized void written(long step, long mark, StepWriter.Store store) {
    Written last = unsettled.peekLast();
    if (step <= settled || last != null && step <= last.step()) {
      return; // nothing new written
    }
    if (last != null && last.mark() == mark) {
      unsettled.pollLast(); // the same logged state covers both: keep the later step
    }
    unsettled.addLast(new Written(step, mark));
    advance(store);
  }

  /** The last step all of whose changes are in the tables (with every step before it). */
  synchronized long settled(StepWriter.Store store) {
    advance(store);
    return settled;
  }

  private void advance(StepWriter.Store store) {
    while (!unsettled.isEmpty() && store.inTables(unsettled.peekFirst().mark())) {
      settled = Math.max(settled, unsettled.pollFirst().step());
    }
  }
}
