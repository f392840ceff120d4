package org.gstore.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Table;
import org.gstore.client.GStoreClient;
import org.gstore.client.GroupSpec;
import org.gstore.client.KeyGroup;
import org.gstore.common.RowGroupedException;
import org.gstore.common.protocol.GroupRecord;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.OwnerRecord;
import org.gstore.coprocessor.config.GStoreConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Protocol state logged in the shared WAL ({@code gstore.protocol.log=wal}) and checkpointed to the state tables
 * only when a region closes or a server stops (the checkpoint delay is ten minutes here): a leader or a follower
 * that crashes between a record's hflush and its checkpoint loses nothing, because a recovery writes the dead log's
 * protocol state to the tables before any region loads from them; a region that moves flushes first. Runs its own
 * cluster. A split flushes like a move.
 */
class ProtocolLogIT {
  private static final TableName BANK = TableName.valueOf("protocol_log_bank");
  private static final long OPENING_BALANCE = 1_000;
  private static GStoreMiniCluster cluster;
  private static GStoreClient client;

  @BeforeAll
  static void startCluster() throws Exception {
    cluster = GStoreMiniCluster.start(3, Map.of(GStoreConfig.PROTOCOL_LOG, "wal",
        GStoreConfig.PROTOCOL_CHECKPOINT_DELAY_MS, "600000"));
    client = GStoreClient.create(cluster.getConfiguration());
    cluster.createTable(BANK, new byte[][] {Accounts.CF}, TestRows.splits(3)).close();
  }

  @AfterAll
  static void stopCluster() throws Exception {
    client.close();
    cluster.close();
  }

  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void aLeaderThatCrashesBeforeItsCheckpointKeepsItsGroup() throws Exception {
    List<byte[]> rows = TestRows.rows(0, 9); // over the three regions
    openAccounts(rows);
    KeyGroup g = client.createGroup(GroupSpec.builder().id("logged-leader").leader(BANK, rows.get(0))
        .members(BANK, rows).build());
    Accounts.transfer(g, BANK, rows.get(1), rows.get(5), 100);
    assertThat(groupRecords("logged-leader")).as("the group is in the leader's WAL only").isEmpty();

    crashServerHosting(rows.get(0));

    assertThat(total(g, rows)).as("the group serves again, every commit kept").isEqualTo(OPENING_BALANCE * 9);
    assertThat(groupRecords("logged-leader")).as("replayed into gstore:groups").isNotEmpty();
    assertEveryRowFenced(rows);
    g.delete();
    assertRowsTakePlainWrites(rows);
    cluster.getTestingUtility().getMiniHBaseCluster().startRegionServer();
  }

  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void aFollowerThatCrashesBeforeItsCheckpointKeepsItsRowsInTheGroup() throws Exception {
    List<byte[]> rows = TestRows.rows(100, 9);
    openAccounts(rows);
    KeyGroup g = client.createGroup(GroupSpec.builder().id("logged-follower").leader(BANK, rows.get(0))
        .members(BANK, rows).build());
    ServerName leaderHost = TestRegions.hostOf(cluster, BANK, rows.get(0));
    byte[] follower = rows.stream().filter(r -> !hostOf(r).equals(leaderHost)).findFirst().orElseThrow();
    assertThat(ownerRecords(follower)).as("the member's JOINING is in its server's WAL only").isEmpty();

    crashServerHosting(follower);

    // the member's region reopens elsewhere with its owner record replayed: still fenced, still the group's
    assertEveryRowFenced(rows);
    assertThat(ownerRecords(follower)).extracting(o -> o.group().id().name()).containsExactly("logged-follower");
    Accounts.transfer(g, BANK, follower, rows.get(0), 7);
    assertThat(total(g, rows)).isEqualTo(OPENING_BALANCE * 9);
    g.delete();
    assertRowsTakePlainWrites(rows);
    cluster.getTestingUtility().getMiniHBaseCluster().startRegionServer();
  }

  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void aLeaderRegionThatMovesFlushesItsProtocolStateFirst() throws Exception {
    List<byte[]> rows = TestRows.rows(200, 9);
    openAccounts(rows);
    KeyGroup g = client.createGroup(GroupSpec.builder().id("logged-move").leader(BANK, rows.get(0))
        .members(BANK, rows).build());
    assertThat(groupRecords("logged-move")).isEmpty();

    TestRegions.move(cluster, BANK, rows.get(0));

    assertThat(groupRecords("logged-move")).as("the closing region flushed it").isNotEmpty();
    Accounts.transfer(g, BANK, rows.get(2), rows.get(7), 50);
    assertThat(total(g, rows)).isEqualTo(OPENING_BALANCE * 9);
    g.delete();
    assertRowsTakePlainWrites(rows);
  }

  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void aRegionThatSplitsFlushesItsProtocolStateBeforeItsDaughtersLoad() throws Exception {
    List<byte[]> rows = TestRows.rows(300, 9); // 0-00300 leads; 1-00301 and 2-00302 share its region
    openAccounts(rows);
    KeyGroup g = client.createGroup(GroupSpec.builder().id("logged-split").leader(BANK, rows.get(0))
        .members(BANK, rows).build());
    assertThat(ownerRecords(rows.get(1))).isEmpty();

    TestRegions.split(cluster, BANK, "1"); // the leader in one daughter, two members in the other

    assertThat(groupRecords("logged-split")).as("the parent flushed it").isNotEmpty();
    assertThat(ownerRecords(rows.get(1))).extracting(o -> o.group().id().name()).containsExactly("logged-split");
    assertEveryRowFenced(rows);
    Accounts.transfer(g, BANK, rows.get(1), rows.get(0), 30);
    assertThat(total(g, rows)).isEqualTo(OPENING_BALANCE * 9);
    g.delete();
    assertRowsTakePlainWrites(rows);
  }

  private static void crashServerHosting(byte[] row) throws Exception {
    cluster.crashRegionServer(TestRegions.serverIndex(cluster, TestRegions.hostOf(cluster, BANK, row)));
  }

  private static ServerName hostOf(byte[] row) {
    try {
      return TestRegions.hostOf(cluster, BANK, row);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static List<GroupRecord> groupRecords(String name) {
    return StateTablesView.groups(cluster).stream().filter(r -> r.id().name().equals(name)).toList();
  }

  private static List<OwnerRecord> ownerRecords(byte[] row) {
    Key key = Key.of(BANK.getNameAsString(), row);
    return StateTablesView.owners(cluster).stream().filter(o -> o.key().equals(key)).toList();
  }

  private static void openAccounts(List<byte[]> rows) throws Exception {
    try (Table table = cluster.getConnection().getTable(BANK)) {
      for (byte[] row : rows) {
        table.put(Accounts.balance(row, OPENING_BALANCE));
      }
    }
  }

  private static long total(KeyGroup g, List<byte[]> rows) throws Exception {
    return g.transact(txn -> {
      long sum = 0;
      for (byte[] row : rows) {
        sum += Accounts.balance(txn.get(BANK, new Get(row)));
      }
      return sum;
    });
  }

  private static void assertEveryRowFenced(List<byte[]> rows) throws Exception {
    try (Table table = cluster.getConnection().getTable(BANK)) {
      for (byte[] row : rows) {
        assertThatThrownBy(() -> table.put(Accounts.balance(row, -1))).as("row %s", new String(row))
            .isInstanceOf(RowGroupedException.class);
      }
    }
  }

  private static void assertRowsTakePlainWrites(List<byte[]> rows) throws Exception {
    try (Table table = cluster.getConnection().getTable(BANK)) {
      for (byte[] row : rows) {
        table.put(Accounts.balance(row, OPENING_BALANCE));
      }
    }
  }
}
