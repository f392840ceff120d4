package org.gstore.common.protocol.log;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What writing a run of protocol records to the state tables takes: their changes collapsed to the newest per row.
 * Writing them in any order, partly, more than once or late leaves every row with its newest version, because rows
 * take only newer versions ({@link LoggedChange#supersedes}).
 *
 * @param changes the newest change of each row the records touch
 * @param upTo the sequence of the last record covered: once every change is written, the node's checkpoint marker
 *     may move there, and no earlier record needs replaying
 */
public record Checkpoint(List<LoggedChange> changes, long upTo) {
  public Checkpoint {
    changes = List.copyOf(changes);
  }

  /** The checkpoint of {@code records}, in log order (empty: nothing to write, {@code upTo} 0). */
  public static Checkpoint of(List<ProtocolRecord> records) {
    return new Checkpoint(collapse(records),
        records.isEmpty() ? 0 : records.get(records.size() - 1).sequence());
  }

  /**
   * What a recovery writes for a dead node: its durable records past its checkpoint marker, collapsed. Records at
   * or before the marker are in the tables already.
   */
  public static Checkpoint replay(List<ProtocolRecord> log, long marker) {
    return of(log.stream().filter(r -> r.sequence() > marker).toList());
  }

  private static List<LoggedChange> collapse(Collection<ProtocolRecord> records) {
    Map<Object, LoggedChange> newest = new LinkedHashMap<>();
    for (ProtocolRecord r : records) {
      for (LoggedChange c : r.changes()) {
        newest.merge(c.target(), c, (a, b) -> b.version() > a.version() ? b : a);
      }
    }
    return new ArrayList<>(newest.values());
  }
}
