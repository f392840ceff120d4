package org.gstore.recovery;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * Which records each WAL stream must keep for the shipper: those above the last record it was handed, and those
 * still held (a commit not yet persisted in HBase, or a protocol record not yet checkpointed). Not thread-safe: the
 * {@link ShipmentLedger} that owns it uses it under its own lock.
 */
final class WalHolds {
  /** Per WAL stream: the records the shipper has been handed. */
  private final Watermark[] handedOver;
  /** Per WAL stream: the records held, which the WAL keeps. */
  private final List<TreeSet<Long>> held = new ArrayList<>();

  WalHolds(int streams) {
    handedOver = new Watermark[streams];
    for (int i = 0; i < streams; i++) {
      handedOver[i] = new Watermark();
      held.add(new TreeSet<>());
    }
  }

  /** The record at {@code position} is durable and held until {@link #release}d. */
  void hold(WalPosition position) {
    held.get(position.stream()).add(position.seq());
    seen(position);
  }

  /** The record at {@code position} is durable and need not be kept: later records must not wait for it. */
  void seen(WalPosition position) {
    handedOver[position.stream()].mark(position.seq());
  }

  void release(WalPosition position) {
    held.get(position.stream()).remove(position.seq());
  }

  /** Whether the record held at {@code position} is its stream's oldest held one while later records follow it. */
  boolean pinsRecordsAfter(WalPosition position) {
    TreeSet<Long> h = held.get(position.stream());
    return !h.isEmpty() && h.first() == position.seq() && handedOver[position.stream()].through() > position.seq();
  }

  /** The stream keeps the records above this sequence number: each one up to it was seen and none is held. */
  long neededAbove(int stream) {
    TreeSet<Long> h = held.get(stream);
    long seen = handedOver[stream].through();
    return h.isEmpty() ? seen : Math.min(seen, h.first() - 1);
  }
}
