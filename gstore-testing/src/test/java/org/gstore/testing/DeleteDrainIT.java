package org.gstore.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.gstore.testing.Accounts.CF;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.HRegionServer;
import org.awaitility.Awaitility;
import org.gstore.client.GStoreClient;
import org.gstore.client.GroupSpec;
import org.gstore.client.KeyGroup;
import org.gstore.coprocessor.server.GStoreServer;
import org.gstore.coprocessor.server.GStoreServers;
import org.gstore.recovery.hbase.OutcomeTable;
import org.gstore.testing.junit.WithMiniCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A delete right after a commit, shipped with {@code ASYNC_WAL} (the default) and not yet claimed persisted by the
 * servers that took it, writes the commit's rows again, persisted, before the rows are released; its outcome row
 * it does not write again: that was persisted ({@code SYNC_WAL}) when the commit was first shipped.
 */
@WithMiniCluster(regionServers = 3)
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class DeleteDrainIT {
  private static final TableName BANK = TableName.valueOf("drain_bank");
  private static final long OPENING = 100;

  @Test
  void aDeleteRightAfterACommitPersistsItsRowsAgainButNotItsOutcomeRow(GStoreMiniCluster cluster) throws Exception {
    List<byte[]> rows = TestRows.rows(0, 6);
    try (Table table = cluster.createTable(BANK, new byte[][] {CF}, TestRows.splits(3));
        GStoreClient client = GStoreClient.create(cluster.getConnection())) {
      for (byte[] row : rows) {
        table.put(Accounts.balance(row, OPENING));
      }
      GStoreServer leader = GStoreServers.on(TestRegions.hostOf(cluster, BANK, rows.get(0)));
      Awaitility.await("earlier tests' commits shipped and persisted").atMost(Duration.ofSeconds(60))
          .until(() -> cluster.getTestingUtility().getHBaseCluster().getLiveRegionServerThreads().stream()
              .allMatch(t -> GStoreServers.on(t.getRegionServer().getServerName()).shipper().ledger()
                  .pendingCount() == 0));
      long drainsBefore = leader.shipper().ledger().persistedOnDrainCount();
      long outcomesBefore = outcomeRowsWritten(cluster);

      int games = 0;
      while (leader.shipper().ledger().persistedOnDrainCount() == drainsBefore && games < 5) {
        KeyGroup game = client.createGroup(GroupSpec.builder().id("drained-" + games).leader(BANK, rows.get(0))
            .members(BANK, rows).build());
        Accounts.transfer(game, BANK, rows.get(0), rows.get(5), 1);
        game.delete(); // at once: the servers' claims come every few seconds
        games++;
      }

      assertThat(leader.shipper().ledger().persistedOnDrainCount())
          .as("premise: a delete found its commit shipped but not yet persisted, and wrote it again")
          .isGreaterThan(drainsBefore);
      assertThat(outcomeRowsWritten(cluster) - outcomesBefore)
          .as("one outcome row per commit, written when it was shipped; none by the drain").isEqualTo(games);
      assertThat(Accounts.balance(table.get(new Get(rows.get(0))))).isEqualTo(OPENING - games);
      assertThat(Accounts.balance(table.get(new Get(rows.get(5))))).isEqualTo(OPENING + games);
    }
  }

  /** Rows written to {@code gstore:outcomes} so far, counted by the regions that took them. */
  private static long outcomeRowsWritten(GStoreMiniCluster cluster) {
    return cluster.getTestingUtility().getHBaseCluster().getLiveRegionServerThreads().stream()
        .map(t -> t.getRegionServer()).mapToLong(rs -> writes(rs)).sum();
  }

  private static long writes(HRegionServer rs) {
    return rs.getRegions(OutcomeTable.NAME).stream().mapToLong(HRegion::getWriteRequestsCount).sum();
  }
}
