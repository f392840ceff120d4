package org.gstore.coprocessor.server;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.gstore.common.protocol.StateChange;
import org.gstore.common.protocol.Step;

/**
 * What one batch of the {@link StepWriter} writes before the batch's effects leave ({@link #now}), and which
 * deferred changes it carries to a later batch ({@link #later}). One change per target, the last one decided:
 * <ul>
 *   <li>a step's changes are written now; a deferred change is written now only if its target already is (it
 *       collapses into that write), else it waits;
 *   <li>a carried deferred change rides along with the first batch that writes its table anyway (one more row in a
 *       call that is made regardless), so it costs no call of its own; a call to another table would put a
 *       round trip in front of that batch's effects;
 *   <li>a flush (the writer's wake-up when no batch came for a while) or a barrier (a closing region, whose next
 *       host must load everything) writes everything now.
 * </ul>
 * A carried change still goes before any later change to its own target, so each target's writes stay in order.
 */
record WritePlan(List<StateChange> now, List<StateChange> later) {
  /** @param table which table a change is written to */
  static WritePlan of(List<StateChange> carried, List<Step> steps, boolean flush,
      Function<StateChange, Object> table) {
    Map<Object, StateChange> now = new LinkedHashMap<>();
    Map<Object, StateChange> later = new LinkedHashMap<>();
    carried.forEach(c -> later.put(c.target(), c));
    for (Step s : steps) {
      for (StateChange c : s.changes()) {
        later.remove(c.target());
        now.put(c.target(), c);
      }
      for (StateChange c : s.deferred()) {
        (now.containsKey(c.target()) ? now : later).put(c.target(), c);
      }
    }
    Set<Object> written = now.values().stream().map(table).collect(Collectors.toSet());
    later.values().removeIf(c -> {
      if (flush || written.contains(table.apply(c))) {
        now.put(c.target(), c);
        return true;
      }
      return false;
    });
    return new WritePlan(List.copyOf(now.values()), List.copyOf(later.values()));
  }
}
