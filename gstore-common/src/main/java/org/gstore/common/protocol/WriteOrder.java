package org.gstore.common.protocol;

import java.util.ArrayList;
import java.util.List;

/**
 * In what order a node makes a batch of changes durable: phases written one after another, the changes within a
 * phase written at the same time (one call per state table). A crash during a phase may leave any subset of it
 * durable, and nothing of later phases. The simulator crashes writes by these phases, so what it checks is what
 * the coprocessor's writer does.
 *
 * <ol>
 *   <li>Uid reservations, alone: other changes may carry ids from the new block.
 *   <li>Group and owner records together, unless a group record {@linkplain GroupRecord#countsJoins() counts a
 *       member joined}: then owner records first, because a restarted leader does not ask a member it counts
 *       joined again, so the member's {@code JOINING} record must not become durable after it. That happens when a
 *       leader's own keys join in the step that creates the group and every member joined in that step
 *       ({@code ACTIVE} at once); a {@code CREATING} record is written without answers, so a create goes in one
 *       phase. No other pair of records in one batch depends on its order: a {@code JOINING} record of an
 *       incarnation whose {@code CREATING} record is lost is freed by the restarted leader's {@code D}, and a key is
 *       released only after the {@code D} that follows a durable {@code DELETING} record, one batch later.
 * </ol>
 */
public final class WriteOrder {
  private WriteOrder() {}

  /** {@code changes} (one per target) split into the phases to write in order; empty phases are left out. */
  public static List<List<StateChange>> phases(List<StateChange> changes) {
    List<StateChange> reservations = new ArrayList<>();
    List<StateChange> owners = new ArrayList<>();
    List<StateChange> groups = new ArrayList<>();
    boolean countsJoins = false;
    for (StateChange c : changes) {
      if (c instanceof StateChange.ReserveUids) {
        reservations.add(c);
      } else if (c instanceof StateChange.PutOwner || c instanceof StateChange.RemoveOwner) {
        owners.add(c);
      } else {
        groups.add(c);
        countsJoins |= c instanceof StateChange.PutGroup p && p.record().countsJoins();
      }
    }
    List<List<StateChange>> phases = new ArrayList<>();
    addIfAny(phases, reservations);
    if (countsJoins) {
      addIfAny(phases, owners);
      addIfAny(phases, groups);
    } else {
      List<StateChange> together = new ArrayList<>(owners);
      together.addAll(groups);
      addIfAny(phases, together);
    }
    return phases;
  }

  private static void addIfAny(List<List<StateChange>> phases, List<StateChange> phase) {
    if (!phase.isEmpty()) {
      phases.add(List.copyOf(phase));
    }
  }
}
