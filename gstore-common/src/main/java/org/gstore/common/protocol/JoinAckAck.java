package org.gstore.common.protocol;

/**
 * {@code JAA}: the leader's answer to every joined {@code JA}, echoing its yield id. Never retried: a lost
 * {@code JAA} is repaired by the follower's {@code JA} retries.
 */
public record JoinAckAck(GroupRef group, Key member, Uid yieldId) implements Message {
  @Override
  public Key destination() {
    return member;
  }

  @Override
  public <R> R accept(Visitor<R> visitor) {
    return visitor.joinAckAck(this);
  }
}
