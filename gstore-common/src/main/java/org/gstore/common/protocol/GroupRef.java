package org.gstore.common.protocol;

/**
 * One incarnation of a group, as every protocol message names it: the {@link GroupId} plus the epoch the leader
 * issued when the group was created.
 *
 * <p>The epoch is why a name can be reused safely: a {@code D} or {@code DA} delayed in the network from a deleted
 * incarnation must never release or confirm a key of a newer group with the same name and leader.
 */
public record GroupRef(GroupId id, Uid epoch) {
  public GroupRef {
    if (id == null || epoch == null) {
      throw new IllegalArgumentException("group id and epoch are required");
    }
  }

  public Key leader() {
    return id.leader();
  }

  @Override
  public String toString() {
    return id + "~" + epoch;
  }
}
