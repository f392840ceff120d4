package org.gstore.common.protocol.log;

import java.util.List;

/**
 * One record of a node's protocol log: the changes of one write of the node's step writer (one per row, already
 * collapsed), made durable together or not at all.
 *
 * @param sequence the record's position in its node's log, from 1, increasing in the order records become durable
 */
public record ProtocolRecord(long sequence, List<LoggedChange> changes) {
  public ProtocolRecord {
    if (sequence <= 0) {
      throw new IllegalArgumentException("a record's sequence starts at 1: " + sequence);
    }
    changes = List.copyOf(changes);
  }
}
