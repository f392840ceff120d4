package org.gstore.common.protocol;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What one step of the engine decided: durable changes, messages to send (addressed to keys) and client replies.
 * Changes to the same target collapse into the last one, keeping the position of the first, so a step writes each
 * record once; identical messages are sent once.
 */
final class Effects {
  private final Map<Object, StateChange> changes = new LinkedHashMap<>();
  private final Set<Message> messages = new LinkedHashSet<>();
  private final List<Reply> replies = new ArrayList<>();

  void persist(StateChange change) {
    changes.put(change.target(), change);
  }

  void send(Message message) {
    messages.add(message);
  }

  void reply(Reply reply) {
    replies.add(reply);
  }

  List<StateChange> changes() {
    return List.copyOf(changes.values());
  }

  Set<Message> messages() {
    return messages;
  }

  List<Reply> replies() {
    return List.copyOf(replies);
  }
}
