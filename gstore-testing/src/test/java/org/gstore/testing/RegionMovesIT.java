package org.gstore.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.gstore.client.GStoreClient;
import org.gstore.client.GroupSpec;
import org.gstore.client.KeyGroup;
import org.gstore.common.RowGroupedException;
import org.gstore.testing.junit.WithMiniCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Group state follows rows when HBase moves or splits their regions. */
@WithMiniCluster(regionServers = 3)
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class RegionMovesIT {
  private static final byte[] CF = Bytes.toBytes("f");

  @Test
  void groupsAndYieldsSurviveMovingLeaderAndFollowerRegionsAndASplit(GStoreMiniCluster cluster) throws Exception {
    TableName name = TableName.valueOf("moves_rows");
    try (Table table = cluster.createTable(name, new byte[][] {CF}, TestRows.splits(3));
        GStoreClient client = GStoreClient.create(cluster.getConnection())) {
      byte[] leader = TestRows.row(0);
      byte[] follower = TestRows.row(9);
      byte[] lowSplitSide = TestRows.row(4);
      byte[] highSplitSide = TestRows.row(6);
      KeyGroup g = client.createGroup(GroupSpec.builder().id("movers").leader(name, leader)
          .members(name, List.of(follower, lowSplitSide, highSplitSide, TestRows.row(1))).build());
      assertThat(g.members()).hasSize(5);

      TestRegions.move(cluster, name, leader);
      assertThat(client.getGroup(g.id()).members()).isEqualTo(g.members());
      assertFenced(table, leader);
      assertFenced(table, follower);

      TestRegions.move(cluster, name, follower);
      assertFenced(table, follower);

      TestRegions.split(cluster, name, "5");
      assertFenced(table, lowSplitSide);
      assertFenced(table, highSplitSide);
      assertThat(client.getGroup(g.id()).members()).isEqualTo(g.members());

      g.delete();
      for (byte[] row : List.of(leader, follower, lowSplitSide, highSplitSide)) {
        table.put(new Put(row).addColumn(CF, Bytes.toBytes("q"), Bytes.toBytes("free")));
      }
      assertThat(StateTablesView.ownersOf(cluster, "movers")).isEmpty();
    }
  }

  @Test
  void groupsSurviveAGracefulRegionServerRestartAndTheBalancer(GStoreMiniCluster cluster) throws Exception {
    TableName name = TableName.valueOf("restart_rows");
    HBaseTestingUtility util = cluster.getTestingUtility();
    try (Table table = cluster.createTable(name, new byte[][] {CF}, TestRows.splits(6));
        GStoreClient client = GStoreClient.create(cluster.getConnection());
        Admin admin = cluster.getConnection().getAdmin()) {
      List<byte[]> rows = List.of(TestRows.row(0), TestRows.row(2), TestRows.row(4), TestRows.row(6),
          TestRows.row(8));
      KeyGroup g = client.createGroup(GroupSpec.builder().id("survivors").leader(name, rows.get(0))
          .members(name, rows).build());
      ServerName leaderHost;
      try (RegionLocator locator = cluster.getConnection().getRegionLocator(name)) {
        leaderHost = locator.getRegionLocation(rows.get(0), true).getServerName();
      }
      util.getMiniHBaseCluster().stopRegionServer(leaderHost);
      util.getMiniHBaseCluster().waitForRegionServerToStop(leaderHost, 60_000);
      util.waitUntilNoRegionsInTransition(120_000);
      assertThat(client.getGroup(g.id()).members()).isEqualTo(g.members());
      rows.forEach(r -> assertFenced(table, r, "survivors@"));

      util.getMiniHBaseCluster().startRegionServerAndWait(60_000);
      admin.balancerSwitch(true, true);
      admin.balance();
      util.waitUntilNoRegionsInTransition(120_000);
      admin.balancerSwitch(false, true);
      assertThat(client.getGroup(g.id()).members()).isEqualTo(g.members());
      rows.forEach(r -> assertFenced(table, r, "survivors@"));

      g.delete();
      for (byte[] row : rows) {
        table.put(new Put(row).addColumn(CF, Bytes.toBytes("q"), Bytes.toBytes("free")));
      }
    }
  }

  /**
   * A region closes while this server's write of another region's protocol state retries against a state table that
   * is away (its region offline, as while the master restarts): nothing about the closing region is pending, so its
   * drain is done at once. It used to wait for every pending write, ran out its 30 s and aborted the server.
   */
  @Test
  void aRegionWithNothingPendingClosesAtOnceWhileAnotherRegionsStateWriteWaitsForAStateTable(
      GStoreMiniCluster cluster) throws Exception {
    TableName name = TableName.valueOf("away_rows");
    HBaseTestingUtility util = cluster.getTestingUtility();
    try (Table table = cluster.createTable(name, new byte[][] {CF}, TestRows.splits(3));
        GStoreClient client = GStoreClient.create(cluster.getConnection());
        Admin admin = cluster.getConnection().getAdmin()) {
      byte[] leader = TestRows.row(0);
      byte[] unrelated = TestRows.row(9); // another region, with no group
      ServerName host = TestRegions.hostOf(cluster, name, leader);
      if (!TestRegions.hostOf(cluster, name, unrelated).equals(host)) {
        try (RegionLocator locator = cluster.getConnection().getRegionLocator(name)) {
          admin.move(locator.getRegionLocation(unrelated, true).getRegion().getEncodedNameAsBytes(), host);
        }
        util.waitUntilNoRegionsInTransition(60_000);
      }
      assertThat(TestRegions.hostOf(cluster, name, unrelated)).isEqualTo(host);

      org.apache.hadoop.hbase.client.RegionInfo owners =
          admin.getRegions(TableName.valueOf("gstore:owners")).get(0);
      admin.unassign(owners.getRegionName(), false);
      java.util.concurrent.CompletableFuture<KeyGroup> created;
      long movedInMillis;
      try {
        created = client.createGroupAsync(GroupSpec.builder().id("waits").leader(name, leader)
            .members(name, List.of(TestRows.row(1))).build());
        org.awaitility.Awaitility.await("the create's state write waits for the owners table")
            .during(java.time.Duration.ofSeconds(2)).atMost(java.time.Duration.ofSeconds(10))
            .until(() -> !created.isDone());

        long start = System.nanoTime();
        assertThat(TestRegions.move(cluster, name, unrelated)).isNotEqualTo(host);
        movedInMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(util.getMiniHBaseCluster().getRegionServerThreads().stream()
            .map(t -> t.getRegionServer()).filter(rs -> rs.getServerName().equals(host)))
            .as("the server that closed the region lives").singleElement()
            .satisfies(rs -> assertThat(rs.isAborted() || rs.isStopped()).isFalse());
        assertThat(created).as("the other region's write still waits").isNotDone();
      } finally {
        admin.assign(owners.getRegionName());
      }
      assertThat(movedInMillis).as("the close did not wait for the pending write").isLessThan(25_000);
      KeyGroup g = created.get(2, TimeUnit.MINUTES);
      assertThat(g.members()).hasSize(2);
      assertFenced(table, TestRows.row(1), "waits@");
      g.delete();
    }
  }

  private static void assertFenced(Table table, byte[] row) {
    assertFenced(table, row, "movers@");
  }

  private static void assertFenced(Table table, byte[] row, String group) {
    assertThatThrownBy(() -> table.put(new Put(row).addColumn(CF, Bytes.toBytes("q"), Bytes.toBytes("x"))))
        .as(Bytes.toString(row)).isInstanceOf(RowGroupedException.class).hasMessageContaining(group);
  }
}
