package org.gstore.common.protocol;

/** {@code DA}: the member's server has released the member; sent for every {@code D}, even for unknown groups. */
public record DeleteAck(GroupRef group, Key member) implements Message {
  @Override
  public Key destination() {
    return group.leader();
  }

  @Override
  public <R> R accept(Visitor<R> visitor) {
    return visitor.deleteAck(this);
  }
}
