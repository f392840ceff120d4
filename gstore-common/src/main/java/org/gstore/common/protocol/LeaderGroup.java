package org.gstore.common.protocol;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** In-memory leader state of one group: its durable record's fields plus timers and waiting clients. */
final class LeaderGroup {
  final GroupRef ref;
  final CreateMode mode;
  final String createRequest;
  final long leaseMillis;
  final TreeMap<Key, MemberState> members;
  GroupPhase phase;
  String failure;
  long endedAt;
  Retry retry;
  final List<String> createWaiters = new ArrayList<>();
  final List<String> deleteWaiters = new ArrayList<>();
  /**
   * The record as last logged (what a restart reloads, or the one before it if this one was deferred and lost);
   * null until the first write of a new group.
   */
  GroupRecord logged;

  LeaderGroup(GroupRecord record, Retry retry) {
    this.ref = record.group();
    this.mode = record.mode();
    this.createRequest = record.createRequest();
    this.leaseMillis = record.leaseMillis();
    this.members = new TreeMap<>(record.members());
    this.phase = record.phase();
    this.failure = record.failure();
    this.endedAt = record.endedAt();
    this.retry = retry;
  }

  GroupRecord toRecord() {
    return new GroupRecord(ref, mode, phase, createRequest, members, failure, endedAt, leaseMillis);
  }

  boolean any(MemberState.Status status) {
    return members.values().stream().anyMatch(m -> m.is(status));
  }

  /** While deleting, members that may still be yielded to this group: every one not refused nor released yet. */
  boolean awaitsRelease(MemberState m) {
    return m.is(MemberState.Status.PENDING) || m.is(MemberState.Status.JOINED);
  }

  List<Key> membersAwaitingRelease() {
    List<Key> keys = new ArrayList<>();
    for (Map.Entry<Key, MemberState> e : members.entrySet()) {
      if (awaitsRelease(e.getValue())) {
        keys.add(e.getKey());
      }
    }
    return keys;
  }

  /** Why creation did not keep the group, or {@code null} if it succeeds. */
  String creationFailure() {
    MemberState leader = members.get(ref.leader());
    if (leader.is(MemberState.Status.REFUSED)) {
      return "the leader key " + ref.leader() + " was refused: " + leader.refusal();
    }
    if (mode == CreateMode.ATOMIC && any(MemberState.Status.REFUSED)) {
      return "atomic creation failed: " + toRecord().members(MemberState.Status.REFUSED).size()
          + " member(s) refused";
    }
    return null;
  }
}
