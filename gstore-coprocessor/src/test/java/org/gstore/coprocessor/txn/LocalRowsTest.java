package org.gstore.coprocessor.txn;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.RegionInfoBuilder;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.util.Bytes;
import org.gstore.common.protocol.Key;
import org.gstore.common.wire.Columns;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link LocalRows} on a real region (local files, no WAL, no cluster): each row asked for is read with its newest
 * timestamp, delete markers included, whatever lies before, between and after the rows asked for, in files and in
 * the memstore; a read stops at its byte bound and leaves the rest to the caller.
 */
class LocalRowsTest {
  private static final TableName TABLE = TableName.valueOf("local_rows");
  private static final byte[] CF = Bytes.toBytes("f");
  private static final byte[] Q = Bytes.toBytes("q");
  private static HRegion region;

  @BeforeAll
  static void openRegion() throws IOException {
    Configuration conf = HBaseConfiguration.create();
    conf.setBoolean("hbase.hregion.memstore.mslab.enabled", false);
    Path root = new Path(Files.createTempDirectory("local-rows").toUri());
    TableDescriptor table = TableDescriptorBuilder.newBuilder(TABLE)
        .setColumnFamily(ColumnFamilyDescriptorBuilder.of(CF)).build();
    RegionInfo info = RegionInfoBuilder.newBuilder(TABLE).build();
    region = HRegion.createHRegion(info, root, conf, table, null);
  }

  @AfterAll
  static void closeRegion() throws IOException {
    if (region != null) {
      region.close();
    }
  }

  private static void put(String row, String value, long ts) throws IOException {
    region.put(new Put(Bytes.toBytes(row)).addColumn(CF, Q, ts, Bytes.toBytes(value))
        .setDurability(Durability.SKIP_WAL));
  }

  private static Key key(String row) {
    return Key.of(TABLE.getNameAsString(), row);
  }

  private static String value(RowState row) {
    ByteString v = row.columns().get(Columns.key(CF, Q));
    return v == null ? null : v.toStringUtf8();
  }

  @Test
  void readsEachRowAskedForAmongRowsNotAskedForWithItsNewestTimestampMarkersIncluded() throws IOException {
    put("a", "a1", 10);
    put("b", "b1", 11); // not asked for: between rows asked for
    put("c", "c1", 12);
    region.flush(true); // some rows in a file, some in the memstore
    put("c", "c2", 20);
    region.delete(new Delete(Bytes.toBytes("d"), 30).setDurability(Durability.SKIP_WAL)); // a marker alone
    put("e", "e1", 13);
    region.delete(new Delete(Bytes.toBytes("e")).addColumns(CF, Q, 40).setDurability(Durability.SKIP_WAL));
    put("g", "g1", 14);
    put("h", "h1", 15); // not asked for, after the last row asked for

    // asked for out of order, with rows that do not exist before, between and after the ones that do
    List<Key> keys = List.of(key("g"), key("0"), key("c"), key("a"), key("d"), key("bb"), key("e"), key("f"),
        key("gg"));
    LocalRows.Read read = new LocalRows(k -> region).read(keys);

    assertThat(read.elsewhere()).isEmpty();
    Map<Key, RowState> rows = read.rows();
    assertThat(rows.keySet()).containsExactlyElementsOf(keys);
    assertThat(value(rows.get(key("a")))).isEqualTo("a1");
    assertThat(rows.get(key("a")).version()).isEqualTo(10);
    assertThat(value(rows.get(key("c")))).isEqualTo("c2");
    assertThat(rows.get(key("c")).version()).isEqualTo(20);
    assertThat(value(rows.get(key("d")))).isNull();
    assertThat(rows.get(key("d")).version()).as("a row's version counts its delete markers").isEqualTo(30);
    assertThat(value(rows.get(key("e")))).as("deleted").isNull();
    assertThat(rows.get(key("e")).version()).isEqualTo(40);
    assertThat(value(rows.get(key("g")))).isEqualTo("g1");
    assertThat(rows.get(key("g")).version()).isEqualTo(14);
    for (String none : List.of("0", "bb", "f", "gg")) {
      assertThat(rows.get(key(none)).columns()).as(none).isEmpty();
      assertThat(rows.get(key(none)).version()).as(none).isZero();
    }
  }

  @Test
  void leavesTheRowsPastItsByteBoundToTheCaller() throws IOException {
    byte[] big = new byte[(int) (LocalRows.MAX_BYTES / 2) + 1];
    List<Key> keys = new ArrayList<>();
    for (String row : List.of("big1", "big2", "big3", "big4")) {
      region.put(new Put(Bytes.toBytes(row)).addColumn(CF, Q, big).setDurability(Durability.SKIP_WAL));
      keys.add(key(row));
    }
    LocalRows.Read read = new LocalRows(k -> region).read(keys);
    assertThat(read.rows().keySet()).as("up to the row that passes the bound, that one included")
        .containsExactly(key("big1"), key("big2"));
    assertThat(read.elsewhere()).containsExactly(key("big3"), key("big4"));
  }

  @Test
  void leavesRowsOfRegionsNotServedHereToTheCaller() {
    LocalRows.Read read = new LocalRows(k -> null).read(List.of(key("a"), key("b")));
    assertThat(read.rows()).isEmpty();
    assertThat(read.elsewhere()).containsExactly(key("a"), key("b"));
  }

  @Test
  void refusesAReadOfMoreRowsThanTheLargestGroupHasBeforeReadingAny() {
    java.util.concurrent.atomic.AtomicInteger asked = new java.util.concurrent.atomic.AtomicInteger();
    LocalRows rows = new LocalRows(k -> {
      asked.incrementAndGet();
      return region;
    });
    List<Key> keys = new ArrayList<>();
    for (int i = 0; i <= LocalRows.MAX_ROWS; i++) {
      keys.add(key("many" + i));
    }
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> rows.read(keys))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("a read of 100001 rows; at most 100000");
    assertThat(asked).as("no region was asked for a row").hasValue(0);
    assertThat(rows.read(keys.subList(0, 2)).elsewhere()).as("a bounded read still answers").isEmpty();
  }
}
