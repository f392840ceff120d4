package org.gstore.common.protocol;

import java.util.ArrayList;
import java.util.List;

/**
 * The output of one engine step. The node running the engine must make {@link #changes()} durable in order before
 * it sends any of {@link #datagrams()} or delivers any of {@link #replies()}: that is what lets a crashed node
 * resume from its durable state without contradicting what it already told others.
 *
 * <p>{@link #deferred()} changes may become durable after the step's datagrams and replies left, and after later
 * steps' changes to other targets, but never after a later change to their own target (it replaces them), and
 * before the node gives up the keys they concern (a region close). A crash may lose them: the engine defers only a
 * change whose loss a restart repairs by itself, with the same outcome it already announced, whatever else became
 * durable since (see {@code docs/protocol.md}, "Deferred records"). Two steps' changes to one target collapse as
 * usual; the result is deferred only if both were.
 *
 * <p>{@link #early()} datagrams may leave before the step's changes (and earlier steps' changes) are durable,
 * unless a {@link StateChange.ReserveUids} in this or an earlier step is not durable yet (they carry ids from the
 * reserved block). They are a new group's {@code J}s: a member that joins an incarnation the leader then loses in
 * a crash keeps asking with {@code JA}, and the restarted leader, which does not know it, answers {@code D}. Nothing
 * a member answers can reach a client before the step's changes are durable, because the leader takes the answer
 * in a later step. See {@code docs/protocol.md}, "Early and local joins".
 */
public record Step(List<StateChange> changes, List<StateChange> deferred, List<Datagram> early,
    List<Datagram> datagrams, List<Reply> replies) {
  public static final Step NOTHING = new Step(List.of(), List.of(), List.of(), List.of(), List.of());

  public Step {
    changes = List.copyOf(changes);
    deferred = List.copyOf(deferred);
    early = List.copyOf(early);
    datagrams = List.copyOf(datagrams);
    replies = List.copyOf(replies);
  }

  public boolean isEmpty() {
    return changes.isEmpty() && deferred.isEmpty() && early.isEmpty() && datagrams.isEmpty() && replies.isEmpty();
  }

  /** Whether this step reserves a block of uids: its early datagrams (and later steps') must wait for that. */
  public boolean reservesUids() {
    return changes.stream().anyMatch(StateChange.ReserveUids.class::isInstance);
  }

  /** The same step once its early datagrams have been sent. */
  public Step withEarlySent() {
    return early.isEmpty() ? this : new Step(changes, deferred, List.of(), datagrams, replies);
  }

  /** The same step with its early datagrams sent like the others, after the changes are durable. */
  public Step withoutEarly() {
    if (early.isEmpty()) {
      return this;
    }
    List<Datagram> all = new ArrayList<>(early);
    all.addAll(datagrams);
    return new Step(changes, deferred, List.of(), all, replies);
  }
}
