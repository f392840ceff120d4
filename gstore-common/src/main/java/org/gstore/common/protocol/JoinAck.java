package org.gstore.common.protocol;

/**
 * {@code JA}: the member's answer to a {@code J}. When joined it carries the follower's fresh yield id and is
 * retried until the matching {@code JAA}; a refusal carries the reason and is sent once per {@code J}.
 *
 * @param yieldId the yield id when joined, {@code null} when refused
 * @param refusal why the member did not join, {@code null} when joined
 */
public record JoinAck(GroupRef group, Key member, Uid yieldId, String refusal) implements Message {
  public JoinAck {
    if ((yieldId == null) == (refusal == null)) {
      throw new IllegalArgumentException("a JoinAck carries either a yield id or a refusal");
    }
  }

  public static JoinAck joined(GroupRef group, Key member, Uid yieldId) {
    return new JoinAck(group, member, yieldId, null);
  }

  public static JoinAck refused(GroupRef group, Key member, String reason) {
    return new JoinAck(group, member, null, reason);
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
