package org.gstore.common.protocol;

/**
 * Issues this node's {@link Uid}s. Sequence numbers are reserved durably in blocks, like HBase's sequence ids, so
 * a restarted node continues above everything it could have issued before, without a durable write per id.
 */
final class UidSource {
  private final NodeId node;
  private final int block;
  private long issued;
  private long reserved;

  /** @param reserved the highest durably reserved sequence number (0 for a new node) */
  UidSource(NodeId node, int block, long reserved) {
    this.node = node;
    this.block = block;
    this.issued = reserved;
    this.reserved = reserved;
  }

  Uid next(Effects fx) {
    if (issued == reserved) {
      reserved += block;
      fx.persist(new StateChange.ReserveUids(node, reserved));
    }
    return new Uid(node, ++issued);
  }
}
