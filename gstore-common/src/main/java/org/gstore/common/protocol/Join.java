package org.gstore.common.protocol;

/** {@code J}: the leader asks the member's server to yield the member to the group. Retried until a {@code JA}. */
public record Join(GroupRef group, Key member) implements Message {
  @Override
  public Key destination() {
    return member;
  }

  @Override
  public <R> R accept(Visitor<R> visitor) {
    return visitor.join(this);
  }
}
