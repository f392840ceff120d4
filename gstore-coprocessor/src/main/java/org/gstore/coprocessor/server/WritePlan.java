package org.gstore.coprocessor.server;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.gstore.common.protocol.StateChange;
import org.gstore.common.protocol.Step;

/**
 * What one batch of the {@link StepWriter} writes before the batch's effects leave ({@link #now}), and which
 * deferred changes it carries to the next batch ({@link #later}). One change per target, the last one decided:
 * <ul>
 *   <li>the deferred changes carried from the previous batch are written now, so they are durable no later than
 *       anything decided after them;
 *   <li>a step's changes are written now; a deferred change is written now only if its target already is (it
 *       collapses into that write), else it waits;
 *   <li>a barrier (a closing region, whose next host must load everything) writes everything now.
 * </ul>
 */
record WritePlan(List<StateChange> now, List<StateChange> later) {
  static WritePlan of(List<StateChange> carried, List<Step> steps, boolean barrier) {
    Map<Object, StateChange> now = new LinkedHashMap<>();
    carried.forEach(c -> now.put(c.target(), c));
    Map<Object, StateChange> later = new LinkedHashMap<>();
    for (Step s : steps) {
      for (StateChange c : s.changes()) {
        later.remove(c.target());
        now.put(c.target(), c);
      }
      for (StateChange c : s.deferred()) {
        (now.containsKey(c.target()) ? now : later).put(c.target(), c);
      }
    }
    if (barrier) {
      now.putAll(later);
      later.clear();
    }
    return new WritePlan(List.copyOf(now.values()), List.copyOf(later.values()));
  }
}
