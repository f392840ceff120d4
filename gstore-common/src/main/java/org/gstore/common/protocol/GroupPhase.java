package org.gstore.common.protocol;

/** The leader's phase of a group. */
public enum GroupPhase {
  /** {@code J} sent; waiting for a {@code JA} from every member. */
  CREATING,
  /** Creation terminated and the group kept its members: transactions may run. */
  ACTIVE,
  /** {@code D} sent; waiting for a {@code DA} from every member that may have joined. */
  DELETING,
  /**
   * Every member was given back. The record stays for a retention period as a tombstone so that a client's retried
   * create or delete gets the recorded outcome instead of forming the group again; then it is removed.
   */
  ENDED
}
