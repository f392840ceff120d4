package org.gstore.coprocessor.server;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Predicate;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.StateChange;
import org.gstore.common.protocol.Step;

/**
 * For each key, the newest step submitted to the {@link StepWriter} with a change its region's host loads
 * ({@link StateChange#regionKey}): a closing region need only wait for the steps that touched its keys. Confined to
 * the protocol thread. Keys whose last step has settled are forgotten as the map grows and at every drain, so it
 * holds about as many keys as are unwritten, plus at most {@link #FORGET_SLACK}.
 */
final class TouchedKeys {
  /** Forgetting runs once the map has grown this much since the last time: amortized, never a scan per step. */
  private static final int FORGET_SLACK = 1_024;

  private final Map<Key, Long> lastStep = new HashMap<>();
  private int sizeAfterForget;

  /** Step number {@code step} (counted from 1 in submission order) is queued with these changes. */
  void touch(Step step, long number) {
    step.changes().forEach(c -> c.regionKey().ifPresent(k -> lastStep.put(k, number)));
    step.deferred().forEach(c -> c.regionKey().ifPresent(k -> lastStep.put(k, number)));
  }

  /** The newest step that touched a key {@code inRegion}, 0 if none is remembered. */
  long lastIn(Predicate<Key> inRegion) {
    long last = 0;
    for (Map.Entry<Key, Long> e : lastStep.entrySet()) {
      if (e.getValue() > last && inRegion.test(e.getKey())) {
        last = e.getValue();
      }
    }
    return last;
  }

  /** Whether the map grew enough since keys were last forgotten to make forgetting worth a scan. */
  boolean grew() {
    return lastStep.size() >= sizeAfterForget + FORGET_SLACK;
  }

  /** Forgets the keys whose last step is at most {@code settled}. */
  void forget(long settled) {
    lastStep.values().removeIf(step -> step <= settled);
    sizeAfterForget = lastStep.size();
  }
}
