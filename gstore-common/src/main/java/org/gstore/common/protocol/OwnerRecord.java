package org.gstore.common.protocol;

/**
 * Durable follower state of one key that is not free. A free key has no record.
 *
 * <p>Both states mean the key belongs to {@code group}: plain writers are fenced out from the moment the
 * follower answers a {@code J}, so that whenever the leader counts the key as joined it really is.
 */
public record OwnerRecord(Key key, GroupRef group, Uid yieldId, State state) {
  /** Where the follower is in the join handshake. */
  public enum State {
    /** Answered {@code J} with {@code JA(yieldId)}; retrying {@code JA} until the matching {@code JAA}. */
    JOINING,
    /** Received the matching {@code JAA}: the handshake is over. */
    YIELDED
  }

  public OwnerRecord {
    if (key == null || group == null || yieldId == null || state == null) {
      throw new IllegalArgumentException("all owner record fields are required");
    }
  }
}
