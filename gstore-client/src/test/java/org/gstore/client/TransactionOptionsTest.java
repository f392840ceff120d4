package org.gstore.client;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.filter.PrefixFilter;
import org.apache.hadoop.hbase.security.access.Permission;
import org.apache.hadoop.hbase.security.visibility.CellVisibility;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

/**
 * HBase options a transaction cannot honour are refused before anything is sent, with an error naming them, instead
 * of being silently ignored (these transactions have no client: a call that got past the check would fail).
 */
class TransactionOptionsTest {
  private static final TableName T = TableName.valueOf("players");
  private static final byte[] ROW = Bytes.toBytes("alice");
  private static final byte[] CF = Bytes.toBytes("f");
  private static final byte[] Q = Bytes.toBytes("q");
  private final KeyGroup group = new KeyGroup(null, GroupId.of("g", RowKey.of(T, ROW)), Set.of(RowKey.of(T, ROW)),
      Set.of(), Duration.ZERO);

  /** An option set on a Get (some of HBase's setters declare IOException). */
  private interface Option {
    void set(Get get) throws IOException;
  }

  private void refusedGet(Option option, String named) throws IOException {
    Get get = new Get(ROW);
    option.set(get);
    try (Transaction txn = group.begin()) {
      assertThatThrownBy(() -> txn.get(T, get)).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(named);
    }
  }

  @Test
  void aGetWithAnOptionATransactionWouldIgnoreIsRefusedNamingIt() throws IOException {
    refusedGet(g -> g.setFilter(new PrefixFilter(ROW)), "Filter");
    refusedGet(g -> g.setTimeRange(0, 10), "TimeRange");
    refusedGet(g -> g.setTimestamp(5), "TimeRange");
    refusedGet(g -> g.readVersions(3), "more than one version");
    refusedGet(g -> g.setMaxResultsPerColumnFamily(1), "per-family limit");
    refusedGet(g -> g.setRowOffsetPerColumnFamily(1), "per-family offset");
    refusedGet(g -> g.setCheckExistenceOnly(true), "existence check");
  }

  @Test
  void aPutWithItsOwnTimestampOrATtlIsRefusedAndNothingOfItsBatchIsBuffered() {
    try (Transaction txn = group.begin()) {
      assertThatThrownBy(() -> txn.put(T, new Put(ROW, 5).addColumn(CF, Q, Bytes.toBytes(1L))))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timestamp of its own");
      assertThatThrownBy(() -> txn.put(T, new Put(ROW).addColumn(CF, Q, 5, Bytes.toBytes(1L))))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timestamp of its own");
      Put withTtl = new Put(ROW).addColumn(CF, Q, Bytes.toBytes(1L));
      withTtl.setTTL(1000);
      assertThatThrownBy(() -> txn.put(T, withTtl))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("TTL");
      Put plain = new Put(ROW).addColumn(CF, Q, Bytes.toBytes(2L));
      assertThatThrownBy(() -> txn.put(T, List.of(plain, withTtl))).isInstanceOf(IllegalArgumentException.class);
      // nothing buffered: the commit has no writes, so it commits read-only without calling the (absent) leader
      assertThatCode(txn::commit).as("a refused batch buffers none of its puts").doesNotThrowAnyException();
    }
  }

  @Test
  void aWriteWithAnAclLabelsOrADurabilityOfItsOwnIsRefused() {
    Put withAcl = new Put(ROW).addColumn(CF, Q, Bytes.toBytes(1L));
    withAcl.setACL("bob", Permission.newBuilder().withActions(Permission.Action.READ).build());
    Put withLabels = new Put(ROW).addColumn(CF, Q, Bytes.toBytes(1L));
    withLabels.setCellVisibility(new CellVisibility("secret"));
    Delete skippingTheWal = new Delete(ROW);
    skippingTheWal.setDurability(Durability.SKIP_WAL);
    try (Transaction txn = group.begin()) {
      assertThatThrownBy(() -> txn.put(T, withAcl)).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("ACL");
      assertThatThrownBy(() -> txn.put(T, withLabels)).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("visibility labels");
      assertThatThrownBy(() -> txn.delete(T, skippingTheWal)).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("durability");
    }
  }

  @Test
  void aDeleteOfOneVersionOrUpToATimestampIsRefused() {
    try (Transaction txn = group.begin()) {
      assertThatThrownBy(() -> txn.delete(T, new Delete(ROW).addColumn(CF, Q)))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("one version");
      assertThatThrownBy(() -> txn.delete(T, new Delete(ROW).addFamilyVersion(CF, 5)))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("one version");
      assertThatThrownBy(() -> txn.delete(T, new Delete(ROW, 5)))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("up to a timestamp");
      assertThatThrownBy(() -> txn.delete(T, new Delete(ROW).addColumns(CF, Q, 5)))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("up to a timestamp");
      assertThatThrownBy(() -> txn.delete(T, new Delete(ROW).addFamily(CF, 5)))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("up to a timestamp");
    }
  }
}
