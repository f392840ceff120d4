package org.gstore.common.protocol;

/**
 * {@code D}: the leader gives the member back. Retried until a {@code DA} while the group is being deleted; sent
 * once, unlogged, in answer to a {@code JA} for a group the leader does not (or no longer) know.
 */
public record Delete(GroupRef group, Key member) implements Message {
  @Override
  public Key destination() {
    return member;
  }

  @Override
  public <R> R accept(Visitor<R> visitor) {
    return visitor.delete(this);
  }
}
