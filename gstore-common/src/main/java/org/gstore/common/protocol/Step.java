package org.gstore.common.protocol;

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
 */
public record Step(List<StateChange> changes, List<StateChange> deferred, List<Datagram> datagrams,
    List<Reply> replies) {
  public static final Step NOTHING = new Step(List.of(), List.of(), List.of(), List.of());

  public Step {
    changes = List.copyOf(changes);
    deferred = List.copyOf(deferred);
    datagrams = List.copyOf(datagrams);
    replies = List.copyOf(replies);
  }

  public boolean isEmpty() {
    return changes.isEmpty() && deferred.isEmpty() && datagrams.isEmpty() && replies.isEmpty();
  }
}
