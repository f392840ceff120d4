package org.gstore.common.protocol;

/**
 * An id that is never issued twice in the cluster: the issuing node and a sequence number that only grows for it
 * and survives its restarts ({@link UidSource}). Used for yield ids and group epochs.
 *
 * <p>Yield ids must be unique per key across time, not only per follower: keys move between servers, and a stale
 * {@code JAA} carrying a yield id that a key's new server happens to reuse would be taken as fresh and form a
 * ghost group. Qualifying the sequence by its issuer rules that out.
 */
public record Uid(NodeId issuer, long seq) {
  public Uid {
    if (issuer == null) {
      throw new IllegalArgumentException("issuer must not be null");
    }
    if (seq <= 0) {
      throw new IllegalArgumentException("sequence must be positive: " + seq);
    }
  }

  @Override
  public String toString() {
    return issuer + "#" + seq;
  }
}
