package org.gstore.common.protocol;

import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Durable leader state of one group: enough to resume an interrupted create or delete after a crash or a move of
 * the leader key, and to answer a retried client request.
 *
 * @param createRequest the client's id for the create request, so a retry finds this group instead of failing
 * @param members every member, the leader key included, with what the leader knows of it
 * @param failure why creation did not keep the group, or {@code null} if it did (or has not ended yet)
 * @param endedAt when the group {@link GroupPhase#ENDED}, in the engine's clock; 0 before
 */
public record GroupRecord(GroupRef group, CreateMode mode, GroupPhase phase, String createRequest,
    SortedMap<Key, MemberState> members, String failure, long endedAt) {
  public GroupRecord {
    if (group == null || mode == null || phase == null || createRequest == null || members == null) {
      throw new IllegalArgumentException("all group record fields are required");
    }
    if (!members.containsKey(group.leader())) {
      throw new IllegalArgumentException("the leader key must be a member: " + group);
    }
    members = Collections.unmodifiableSortedMap(new TreeMap<>(members));
  }

  public GroupId id() {
    return group.id();
  }

  /** Members with the given status. */
  public Set<Key> members(MemberState.Status status) {
    return members.entrySet().stream()
        .filter(e -> e.getValue().is(status))
        .map(Map.Entry::getKey)
        .collect(Collectors.toCollection(java.util.TreeSet::new));
  }
}
