package org.gstore.chaos;

import java.util.Random;
import java.util.concurrent.atomic.AtomicLongArray;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * The list-append workload's keys: a fixed number of slots, each holding one key at a time. A key is retired after
 * {@value #APPENDS_PER_KEY} appends and the next generation of its slot takes over ({@code k0007.0}, then
 * {@code k0007.1}, ...), so lists and the history's reads stay short however long the run; the table's splits fall
 * between slots, so a slot's generations share a region.
 */
final class KeySlots {
  /** How many appends a key takes before it is retired. */
  static final int APPENDS_PER_KEY = 24;

  /** Appends invoked per slot; a slot's generation is its appends over {@link #APPENDS_PER_KEY}. */
  private final AtomicLongArray appends;

  KeySlots(int slots) {
    this.appends = new AtomicLongArray(slots);
  }

  int size() {
    return appends.length();
  }

  /** The key of {@code slot}, in its current generation. */
  String current(int slot) {
    return String.format("k%04d.%d", slot, appends.get(slot) / APPENDS_PER_KEY);
  }

  /** The current key of a slot picked at random. */
  String random(Random random) {
    return current(random.nextInt(size()));
  }

  /** Counts an append invoked on {@code key}, towards its retirement. */
  void appendInvoked(String key) {
    appends.incrementAndGet(slotOf(key));
  }

  /** The first key of {@code slot}, as a row. */
  static byte[] first(int slot) {
    return Bytes.toBytes(String.format("k%04d.0", slot));
  }

  /** The rows to split the table at, {@code regions - 1} of them, between slots spread evenly. */
  byte[][] splits(int regions) {
    byte[][] splits = new byte[regions - 1][];
    for (int i = 0; i < splits.length; i++) {
      splits[i] = Bytes.toBytes(String.format("k%04d", (i + 1) * size() / regions));
    }
    return splits;
  }

  private static int slotOf(String key) {
    return Integer.parseInt(key.substring(1, 5));
  }
}
