package org.gstore.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Table;
import org.awaitility.Awaitility;
import org.gstore.client.GStoreClient;
import org.gstore.client.GroupSpec;
import org.gstore.client.KeyGroup;
import org.gstore.coprocessor.config.GStoreConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Crashes that meet region moves, as an operator replacing dead machines makes them: each round starts a new region
 * server and runs the balancer, which moves regions while the round's group forms and commits; commits are shipped
 * late ({@code gstore.shipper.delay.ms}) with {@code ASYNC_WAL}; then the server holding a member row is crashed.
 * The group's next transaction must see every acknowledged commit, and after the delete so must plain HBase reads.
 * Runs its own cluster.
 */
class CombinedFaultsIT {
  private static final TableName BANK = TableName.valueOf("combined_faults_bank");
  private static final int ROUNDS = 3;
  private static final int COMMITS = 15;
  private static final long OPENING = 100;

  @Test
  @Timeout(value = 8, unit = TimeUnit.MINUTES)
  void crashesAfterBalancerMovesLoseNoAcknowledgedCommit() throws Exception {
    try (GStoreMiniCluster cluster = GStoreMiniCluster.start(4, Map.of(GStoreConfig.SHIPPER_DELAY_MS, "1500",
            GStoreConfig.SHIPPER_DURABILITY, "ASYNC_WAL"));
        GStoreClient client = GStoreClient.create(cluster.getConfiguration());
        Admin admin = cluster.getConnection().getAdmin()) {
      cluster.createTable(BANK, new byte[][] {Accounts.CF}, TestRows.splits(8)).close();
      for (int round = 0; round < ROUNDS; round++) {
        List<byte[]> rows = TestRows.rows(round * 10, 10);
        try (Table table = cluster.getConnection().getTable(BANK)) {
          for (byte[] row : rows) {
            table.put(Accounts.balance(row, OPENING));
          }
        }
        // an operator replaces a machine: a new server, and the balancer moves regions onto it meanwhile
        cluster.getTestingUtility().getMiniHBaseCluster().startRegionServer();
        CompletableFuture<Boolean> balanced = CompletableFuture.supplyAsync(() -> {
          try {
            return admin.balance();
          } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        });
        KeyGroup g = client.createGroup(GroupSpec.builder().id("combined-" + round).leader(BANK, rows.get(0))
            .members(BANK, rows).build());
        byte[] member = memberAwayFromLeader(cluster, rows);
        for (int i = 0; i < COMMITS; i++) {
          g.transact(txn -> {
            txn.put(BANK, Accounts.balance(member, Accounts.balance(txn.get(BANK, new Get(member))) + 2));
            return null;
          });
        }
        long expected = OPENING + 2L * COMMITS;
        balanced.get(2, TimeUnit.MINUTES);
        try (Table table = cluster.getConnection().getTable(BANK)) { // shipped, not yet persisted
          Awaitility.await().atMost(Duration.ofSeconds(30))
              .until(() -> Accounts.balance(table.get(new Get(member))) == expected);
        }

        ServerName memberHost = TestRegions.hostOf(cluster, BANK, member);
        cluster.crashRegionServer(TestRegions.serverIndex(cluster, memberHost));

        assertThat(balanceInGroup(g, member)).as("round %d: the group sees every acknowledged commit", round)
            .isEqualTo(expected);
        g.delete();
        try (Table table = cluster.getConnection().getTable(BANK)) {
          assertThat(Accounts.balance(table.get(new Get(member)))).as("round %d: in HBase after the delete", round)
              .isEqualTo(expected);
        }
      }
    }
  }

  /** A member row on another server than the leader row (when the table's regions allow one). */
  private static byte[] memberAwayFromLeader(GStoreMiniCluster cluster, List<byte[]> rows) throws Exception {
    ServerName leaderHost = TestRegions.hostOf(cluster, BANK, rows.get(0));
    List<byte[]> others = new ArrayList<>();
    for (byte[] r : rows.subList(1, rows.size())) {
      if (!TestRegions.hostOf(cluster, BANK, r).equals(leaderHost)) {
        others.add(r);
      }
    }
    return others.isEmpty() ? rows.get(1) : others.get(0);
  }

  private static long balanceInGroup(KeyGroup g, byte[] row) throws Exception {
    return g.transact(txn -> Accounts.balance(txn.get(BANK, new Get(row))));
  }
}
