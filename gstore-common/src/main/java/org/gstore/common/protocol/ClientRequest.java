package org.gstore.common.protocol;

import java.util.Set;

/**
 * A client's request to a group's leader. Every request carries the client's id for it: a retried request with the
 * same id finds the outcome of the first instead of doing the work again.
 */
public sealed interface ClientRequest {
  String requestId();

  GroupId group();

  /** Form a group of {@code members} led by {@code group.leader()} (added to the members if absent). */
  record Create(String requestId, GroupId group, Set<Key> members, CreateMode mode, long leaseMillis)
      implements ClientRequest {
    public Create {
      members = Set.copyOf(members);
      if (leaseMillis < 0) {
        throw new IllegalArgumentException("a lease cannot be negative: " + leaseMillis);
      }
    }

    /** A group without a lease: it lives until deleted. */
    public Create(String requestId, GroupId group, Set<Key> members, CreateMode mode) {
      this(requestId, group, members, mode, 0);
    }
  }

  /** Dissolve a group: returns once every member has been given back. */
  record Delete(String requestId, GroupId group) implements ClientRequest {}
}
