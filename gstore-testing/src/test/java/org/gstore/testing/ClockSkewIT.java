package org.gstore.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.EnvironmentEdgeManager;
import org.gstore.client.GStoreClient;
import org.gstore.client.GroupSpec;
import org.gstore.client.KeyGroup;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A member server whose clock lags the leader's: HBase stamps plain writes with the member's clock, G-Store's cells
 * carry the leader's commit timestamps. A plain write made right after the group's delete must not be hidden behind
 * the group's newer cells: the member frees the row only once its own clock has passed them, refusing plain writes
 * meanwhile (the writer retries). HBase's clock is set back here for every server of the mini cluster, which is
 * how a lagging member looks to a leader whose commit timestamps come from the system clock. Runs its own cluster.
 */
class ClockSkewIT {
  private static final TableName BANK = TableName.valueOf("clock_skew_bank");
  private static final long SKEW_MILLIS = 3_000;

  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void aPlainWriteAfterTheDeleteIsNotHiddenByALaggingMemberClock() throws Exception {
    try (GStoreMiniCluster cluster = GStoreMiniCluster.start(2, Map.of());
        GStoreClient client = GStoreClient.create(cluster.getConfiguration())) {
      cluster.createTable(BANK, new byte[][] {Accounts.CF}, TestRows.splits(2)).close();
      List<byte[]> rows = TestRows.rows(0, 6);
      try (Table table = cluster.getConnection().getTable(BANK)) {
        for (byte[] row : rows) {
          table.put(Accounts.balance(row, 100));
        }
      }
      EnvironmentEdgeManager.injectEdge(() -> System.currentTimeMillis() - SKEW_MILLIS);
      try (Table table = cluster.getConnection().getTable(BANK)) {
        byte[] member = rows.get(rows.size() - 1);
        KeyGroup g = client.createGroup(GroupSpec.builder().id("skewed").leader(BANK, rows.get(0))
            .members(BANK, rows).build());
        g.transact(txn -> {
          txn.put(BANK, Accounts.balance(member, Accounts.balance(txn.get(BANK, new Get(member))) + 1));
          return null;
        });
        g.delete();

        java.util.concurrent.atomic.AtomicInteger refused = new java.util.concurrent.atomic.AtomicInteger();
        org.awaitility.Awaitility.await("the row is freed within the skew").atMost(java.time.Duration.ofSeconds(60))
            .pollDelay(java.time.Duration.ZERO).pollInterval(java.time.Duration.ofMillis(50)).until(() -> {
              try {
                table.put(Accounts.balance(member, 777)); // another service's write, right after the delete
                return true;
              } catch (IOException stillGrouped) {
                refused.incrementAndGet();
                return false;
              }
            });
        assertThat(Accounts.balance(table.get(new Get(member))))
            .as("the plain write after the delete reads back (refused %d times first)", refused.get()).isEqualTo(777);
      } finally {
        EnvironmentEdgeManager.reset();
      }
    }
  }
}
