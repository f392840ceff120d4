package org.gstore.coprocessor.transport;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Test hook: makes every G-Store peer in this JVM drop and duplicate a share of the datagrams it sends, so tests
 * can show the protocol completes over a lossy network inside real region servers. Off unless a test turns it on;
 * nothing in production sets it.
 */
public final class DatagramFaults {
  private static volatile double dropRate;
  private static volatile double duplicateRate;

  private DatagramFaults() {}

  /**
   * Drops {@code drop} (in [0, 1]; 1 cuts every peer off) and duplicates {@code duplicate} (in [0, 1)) of outgoing
   * datagrams.
   */
  public static void inject(double drop, double duplicate) {
    if (drop < 0 || drop > 1 || duplicate < 0 || duplicate >= 1) {
      throw new IllegalArgumentException("drop must be in [0, 1] and duplicate in [0, 1)");
    }
    dropRate = drop;
    duplicateRate = duplicate;
  }

  public static void clear() {
    inject(0, 0);
  }

  /** How many copies of a datagram to send now: 0 (dropped), 1 or 2. */
  static int copies() {
    double drop = dropRate;
    double duplicate = duplicateRate;
    if (drop == 0 && duplicate == 0) {
      return 1;
    }
    ThreadLocalRandom r = ThreadLocalRandom.current();
    return r.nextDouble() < drop ? 0 : r.nextDouble() < duplicate ? 2 : 1;
  }
}
