package org.gstore.common.protocol;

import java.util.List;

/**
 * The output of one engine step. The node running the engine must make {@link #changes()} durable in order before
 * it sends any of {@link #datagrams()} or delivers any of {@link #replies()}: that is what lets a crashed node
 * resume from its durable state without contradicting what it already told others.
 */
public record Step(List<StateChange> changes, List<Datagram> datagrams, List<Reply> replies) {
  public static final Step NOTHING = new Step(List.of(), List.of(), List.of());

  public Step {
    changes = List.copyOf(changes);
    datagrams = List.copyOf(datagrams);
    replies = List.copyOf(replies);
  }

  public boolean isEmpty() {
    return changes.isEmpty() && datagrams.isEmpty() && replies.isEmpty();
  }
}
