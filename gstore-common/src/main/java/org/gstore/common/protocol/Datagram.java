package org.gstore.common.protocol;

import java.util.List;

/**
 * Everything one node sends another in one step: the protocol messages for keys the destination hosts (however many
 * groups and keys they concern) and the keys the destination addressed to the sender that the sender does not host.
 *
 * @param notMine keys the receiver sent messages for but the sender does not host; the receiver refreshes their
 *     location before its next retry
 */
public record Datagram(NodeId from, NodeId to, List<Message> messages, List<Key> notMine) {
  public Datagram {
    messages = List.copyOf(messages);
    notMine = List.copyOf(notMine);
  }
}
