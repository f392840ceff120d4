package org.gstore.common.protocol;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * What one step of the engine decided: durable changes, messages to send (addressed to keys; some may leave before
 * the changes are durable, see {@link Step#early()}) and client replies.
 * Changes to the same target collapse into the last one, keeping the position of the first, so a step writes each
 * record once; identical messages are sent once. A change is deferred ({@link Step#deferred()}) only if every
 * change to its target in the step was.
 */
final class Effects {
  private record Change(StateChange change, boolean deferred) {}

  private final Map<Object, Change> changes = new LinkedHashMap<>();
  private final Set<Message> messages = new LinkedHashSet<>();
  private final Set<Message> early = new LinkedHashSet<>();
  private final List<Reply> replies = new ArrayList<>();

  /** A change that must be durable before any of the step's messages or replies leave. */
  void persist(StateChange change) {
    changes.put(change.target(), new Change(change, false));
  }

  /** A change the step's messages and replies need not wait for (see {@link Step#deferred()}). */
  void persistDeferred(StateChange change) {
    Change before = changes.get(change.target());
    changes.put(change.target(), new Change(change, before == null || before.deferred()));
  }

  void send(Message message) {
    if (!early.contains(message)) {
      messages.add(message);
    }
  }

  /** A message that may leave before the step's changes are durable (see {@link Step#early()}). */
  void sendEarly(Message message) {
    if (!messages.contains(message)) {
      early.add(message);
    }
  }

  /** Takes out the messages (early or not) that {@code local} accepts. */
  List<Message> takeLocal(Predicate<Message> local) {
    List<Message> taken = new ArrayList<>();
    for (Set<Message> set : List.of(messages, early)) {
      for (Iterator<Message> it = set.iterator(); it.hasNext(); ) {
        Message m = it.next();
        if (local.test(m)) {
          taken.add(m);
          it.remove();
        }
      }
    }
    return taken;
  }

  void reply(Reply reply) {
    replies.add(reply);
  }

  List<StateChange> changes() {
    return changes.values().stream().filter(c -> !c.deferred()).map(Change::change).toList();
  }

  List<StateChange> deferred() {
    return changes.values().stream().filter(Change::deferred).map(Change::change).toList();
  }

  Set<Message> messages() {
    return messages;
  }

  Set<Message> early() {
    return early;
  }

  List<Reply> replies() {
    return List.copyOf(replies);
  }
}
