package org.gstore.common.recovery;

import java.util.TreeSet;

/**
 * T_F of one log: the sequence number through which every record has left the shipper (-1: none). Records leave
 * out of order (two commits in one WAL batch are handed to the shipper by different threads), so a record that
 * left early waits above the watermark until the gap below it closes. A record HBase refused for good is "stuck":
 * the watermark never passes it, so the WAL keeps it for an operator.
 */
public final class ShippedThrough {
  private long through = -1;
  private final TreeSet<Long> ahead = new TreeSet<>();
  private final TreeSet<Long> stuck = new TreeSet<>();

  /** Record {@code seq} was shipped (or given up on, with {@code applied} false: it then stays stuck). */
  public void left(long seq, boolean applied) {
    if (!applied) {
      stuck.add(seq);
    }
    if (seq <= through) {
      return; // a record shipped again (after a server died): the watermark already passed it
    }
    ahead.add(seq);
    while (!ahead.isEmpty() && ahead.first() == through + 1) {
      through = ahead.pollFirst();
    }
  }

  /** Every record up to this sequence number is shipped. */
  public long through() {
    return stuck.isEmpty() ? through : Math.min(through, stuck.first() - 1);
  }
}
