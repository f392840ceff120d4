package org.gstore.common.protocol;

/**
 * {@code JA}: the member's answer to a {@code J}. When joined it carries the follower's fresh yield id and is
 * retried until the matching {@code JAA}; a refusal carries the reason and the group incarnation that holds the
 * member, and is sent once per {@code J}.
 *
 * <p>The holder lets a leader recognise a member held by a lost incarnation of its own group (a create whose
 * {@code J} left before the leader crashed and forgot it) and free it, instead of failing the client's retried
 * create because of its own earlier attempt.
 *
 * @param yieldId the yield id when joined, {@code null} when refused
 * @param refusal why the member did not join, {@code null} when joined
 * @param holder the group incarnation the member is in when refused ({@code null} when joined, or from a node
 *     that does not say)
 */
public record JoinAck(GroupRef group, Key member, Uid yieldId, String refusal, GroupRef holder)
    implements Message {
  public JoinAck {
    if ((yieldId == null) == (refusal == null)) {
      throw new IllegalArgumentException("a JoinAck carries either a yield id or a refusal");
    }
    if (yieldId != null && holder != null) {
      throw new IllegalArgumentException("only a refusal names the holder");
    }
  }

  public static JoinAck joined(GroupRef group, Key member, Uid yieldId) {
    return new JoinAck(group, member, yieldId, null, null);
  }

  public static JoinAck refused(GroupRef group, Key member, GroupRef holder, String reason) {
    return new JoinAck(group, member, null, reason, holder);
  }

  public boolean joined() {
    return yieldId != null;
  }

  @Override
  public Key destination() {
    return group.leader();
  }

  @Override
  public <R> R accept(Visitor<R> visitor) {
    return visitor.joinAck(this);
  }
}
