package org.gstore.common.wire;

import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.util.Bytes;
import org.gstore.common.protocol.StateChange;
import org.gstore.common.protocol.log.LoggedChange;

/**
 * The HBase write of one versioned protocol state change ({@link LoggedChange}), the same whoever writes it: a
 * server's state writer or checkpointer, or a recovery replaying a dead server's records. A record is a cell whose
 * timestamp is the change's version; a release is a delete marker at its version, so that a write of an older
 * version that lands later stays hidden (see {@link StateLayout}).
 */
public final class StateMutations {
  /** The column of a node's highest reserved uid in {@link StateLayout#NODES}. */
  public static final byte[] UIDS = Bytes.toBytes("uids");

  private StateMutations() {}

  /** The table a change is written to. */
  public static TableName tableOf(StateChange change) {
    if (change instanceof StateChange.PutGroup || change instanceof StateChange.RemoveGroup) {
      return StateLayout.GROUPS;
    }
    if (change instanceof StateChange.PutOwner || change instanceof StateChange.RemoveOwner) {
      return StateLayout.OWNERS;
    }
    return StateLayout.NODES;
  }

  /**
   * The row write of {@code logged} in {@link #tableOf}'s table, at its version, with synchronous WAL. A group's
   * removal also deletes its lease, at the same version (leases are versioned by the same clocks).
   */
  public static Mutation of(LoggedChange logged) {
    long v = logged.version();
    byte[] family = StateLayout.FAMILY;
    byte[] record = StateLayout.RECORD;
    Mutation m;
    StateChange change = logged.change();
    if (change instanceof StateChange.PutGroup p) {
      m = new Put(StateRows.group(p.record().id())).addColumn(family, record, v, RecordCodec.encode(p.record()));
    } else if (change instanceof StateChange.RemoveGroup r) {
      m = new Delete(StateRows.group(r.group().id())).addColumns(family, record, v)
          .addColumns(family, StateLayout.LEASE, v);
    } else if (change instanceof StateChange.PutOwner p) {
      m = new Put(StateRows.owner(p.record().key())).addColumn(family, record, v, RecordCodec.encode(p.record()));
    } else if (change instanceof StateChange.RemoveOwner r) {
      m = new Delete(StateRows.owner(r.key())).addColumns(family, record, v);
    } else {
      StateChange.ReserveUids u = (StateChange.ReserveUids) change;
      m = new Put(Bytes.toBytes(u.node().value())).addColumn(family, UIDS, v, Bytes.toBytes(u.upTo()));
    }
    m.setDurability(Durability.SYNC_WAL);
    return m;
  }
}
