package org.gstore.common.protocol;

/**
 * What the leader knows of one member.
 *
 * @param yieldId the yield id of the {@code JA} that joined the member, when {@link Status#JOINED}
 * @param refusal why the member did not join, when {@link Status#REFUSED}
 */
public record MemberState(Status status, Uid yieldId, String refusal) {
  /** Member outcome as the leader has logged it. */
  public enum Status {
    /** No {@code JA} yet: {@code J} is being retried. */
    PENDING,
    /** Joined: its server has durably yielded it to this group. */
    JOINED,
    /** Refused: it belonged to another group. */
    REFUSED,
    /** Given back: its {@code DA} arrived while the group was being deleted. */
    RELEASED
  }

  public static final MemberState PENDING = new MemberState(Status.PENDING, null, null);
  public static final MemberState RELEASED = new MemberState(Status.RELEASED, null, null);

  public static MemberState joined(Uid yieldId) {
    return new MemberState(Status.JOINED, yieldId, null);
  }

  public static MemberState refused(String reason) {
    return new MemberState(Status.REFUSED, null, reason);
  }

  public boolean is(Status s) {
    return status == s;
  }
}
