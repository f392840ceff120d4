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
 * @param leaseMillis how long the group lives without a renewal once active; 0: until deleted
 */
public record GroupRecord(GroupRef group, CreateMode mode, GroupPhase phase, String createRequest,
    SortedMap<Key, MemberState> members, String failure, long endedAt, long leaseMillis) {
  /** A record of a group without a lease. */
  public GroupRecord(GroupRef group, CreateMode mode, GroupPhase phase, String createRequest,
      SortedMap<Key, MemberState> members, String failure, long endedAt) {
    this(group, mode, phase, createRequest, members, failure, endedAt, 0);
  }

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

  /**
   * Whether this record tells a restarted leader that a member joined, so it will not ask again: a live group
   * ({@code CREATING} or {@code ACTIVE}) with a {@code JOINED} member. Such a record must not be durable before the
   * member's {@code JOINING} record ({@link WriteOrder}).
   */
  public boolean countsJoins() {
    return (phase == GroupPhase.CREATING || phase == GroupPhase.ACTIVE)
        && members.values().stream().anyMatch(m -> m.is(MemberState.Status.JOINED));
  }

  /**
   * This record with every join forgotten ({@code PENDING}): a restart asks those members again. Refusals stay, so
   * the record never {@linkplain #countsJoins() counts a join}.
   */
  public GroupRecord withJoinsForgotten() {
    TreeMap<Key, MemberState> answers = new TreeMap<>(members);
    answers.replaceAll((k, m) -> m.is(MemberState.Status.JOINED) ? MemberState.PENDING : m);
    return new GroupRecord(group, mode, phase, createRequest, answers, failure, endedAt, leaseMillis);
  }

  /** Members with the given status. */
  public Set<Key> members(MemberState.Status status) {
    return members.entrySet().stream()
        .filter(e -> e.getValue().is(status))
        .map(Map.Entry::getKey)
        .collect(Collectors.toCollection(java.util.TreeSet::new));
  }
}
