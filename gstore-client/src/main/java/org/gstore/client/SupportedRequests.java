package org.gstore.client;

import java.util.List;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.security.visibility.VisibilityConstants;

/**
 * The HBase request options a {@link Transaction} honours, and the refusal of the others: each is refused with an
 * {@link IllegalArgumentException} naming it when the call is made, rather than ignored or done differently.
 */
final class SupportedRequests {
  private SupportedRequests() {
  }

  /** Refuses a Get option a transaction would otherwise ignore ({@link Transaction#get}). */
  static void requireSupported(Get get) {
    String refused = get.getFilter() != null ? "a Filter"
        : !get.getTimeRange().isAllTime() ? "a TimeRange (setTimeRange, setTimestamp)"
        : get.getMaxVersions() > 1 ? "more than one version (readVersions)"
        : get.getMaxResultsPerColumnFamily() >= 0 ? "a per-family limit (setMaxResultsPerColumnFamily)"
        : get.getRowOffsetPerColumnFamily() > 0 ? "a per-family offset (setRowOffsetPerColumnFamily)"
        : get.isCheckExistenceOnly() ? "an existence check (setCheckExistenceOnly)"
        : null;
    if (refused != null) {
      throw new IllegalArgumentException("a G-Store transaction reads the newest committed version of whole rows,"
          + " families or columns; it does not support " + refused + " on a Get");
    }
  }

  /** Refuses a put that asks for what a commit does not do: its own timestamp, a TTL, or a per-write option. */
  static void requireSupported(Put put) {
    String refused = hasOwnTimestamp(put) ? "a timestamp of its own (new Put(row, ts), addColumn(f, q, ts, v))"
        : put.getTTL() != Long.MAX_VALUE ? "a TTL (setTTL)"
        : perWriteOption(put);
    if (refused != null) {
      throw new IllegalArgumentException("a G-Store transaction writes every cell at its commit timestamp, with the"
          + " table's settings; it does not support " + refused + " on a Put");
    }
  }

  /**
   * Refuses a delete of single versions or up to a timestamp (a transaction's delete removes every version), or
   * with a per-write option.
   */
  static void requireSupported(Delete delete) {
    String refused = hasOwnTimestamp(delete)
        ? "a delete up to a timestamp (new Delete(row, ts), addColumns(f, q, ts), addFamily(f, ts))"
        : perWriteOption(delete);
    for (List<Cell> cells : delete.getFamilyCellMap().values()) {
      for (Cell c : cells) {
        if (c.getType() == Cell.Type.Delete || c.getType() == Cell.Type.DeleteFamilyVersion) {
          refused = "a delete of one version (addColumn, addFamilyVersion); use addColumns or addFamily";
        }
      }
    }
    if (refused != null) {
      throw new IllegalArgumentException("a G-Store transaction deletes every version, with the table's settings;"
          + " it does not support " + refused);
    }
  }

  private static boolean hasOwnTimestamp(Mutation m) {
    if (m.getTimestamp() != HConstants.LATEST_TIMESTAMP) {
      return true;
    }
    for (List<Cell> cells : m.getFamilyCellMap().values()) {
      for (Cell c : cells) {
        if (c.getTimestamp() != HConstants.LATEST_TIMESTAMP) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * An option of one write that a commit would drop, named, or null: an ACL or visibility labels (dropping them
   * would grant what the writer meant to restrict) or a durability (a commit's is the WAL's).
   */
  private static String perWriteOption(Mutation m) {
    if (m.getACL() != null) {
      return "a cell ACL (setACL)";
    }
    if (m.getAttribute(VisibilityConstants.VISIBILITY_LABELS_ATTR_KEY) != null) {
      return "visibility labels (setCellVisibility)";
    }
    return m.getDurability() != Durability.USE_DEFAULT ? "a durability of its own (setDurability)" : null;
  }
}
