package org.gstore.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Table;
import org.awaitility.Awaitility;
import org.gstore.client.GStoreClient;
import org.gstore.client.GroupSpec;
import org.gstore.client.KeyGroup;
import org.gstore.client.TransactionConflictException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The bank invariant across crashes: transfers run between the accounts of several groups while, five times, a
 * random region server is crashed (as kill -9 would; once two at the same time) and new ones are started. Every
 * transfer is atomic, so whatever each one's outcome (committed, conflicted, or failed with the crash), each
 * group's total stays what it was, and after the groups are deleted HBase holds the same totals. Runs its own
 * cluster (default ASYNC_WAL shipping).
 */
class CrashChaosIT {
  private static final TableName BANK = TableName.valueOf("chaos_bank");
  private static final int GROUPS = 4;
  private static final int ACCOUNTS = 5;
  private static final long OPENING = 1_000;
  private static final int CRASHES = 5;

  @Test
  @Timeout(value = 8, unit = TimeUnit.MINUTES)
  void moneyIsConservedAcrossFiveCrashesUnderLoad() throws Exception {
    try (GStoreMiniCluster cluster = GStoreMiniCluster.start(3, Map.of());
        GStoreClient client = GStoreClient.create(cluster.getConfiguration())) {
      cluster.createTable(BANK, new byte[][] {Accounts.CF}, TestRows.splits(6)).close();
      List<KeyGroup> groups = new ArrayList<>();
      List<List<byte[]>> members = new ArrayList<>();
      try (Table table = cluster.getConnection().getTable(BANK)) {
        for (int g = 0; g < GROUPS; g++) {
          List<byte[]> rows = TestRows.rows(g * ACCOUNTS, ACCOUNTS);
          for (byte[] row : rows) {
            table.put(Accounts.balance(row, OPENING));
          }
          members.add(rows);
          groups.add(client.createGroup(GroupSpec.builder().id("chaos-" + g).leader(BANK, rows.get(0))
              .members(BANK, rows).build()));
        }
      }

      AtomicBoolean running = new AtomicBoolean(true);
      AtomicLong committed = new AtomicLong();
      AtomicLong failed = new AtomicLong();
      ExecutorService load = Executors.newFixedThreadPool(GROUPS);
      List<Future<?>> workers = new ArrayList<>();
      for (int g = 0; g < GROUPS; g++) {
        KeyGroup group = groups.get(g);
        List<byte[]> rows = members.get(g);
        Random rnd = new Random(g);
        workers.add(load.submit(() -> {
          while (running.get()) {
            int a = rnd.nextInt(ACCOUNTS);
            byte[] from = rows.get(a);
            byte[] to = rows.get((a + 1 + rnd.nextInt(ACCOUNTS - 1)) % ACCOUNTS); // never the same account
            long amount = 1 + rnd.nextInt(20);
            try {
              Accounts.transfer(group, BANK, from, to, amount);
              committed.incrementAndGet();
            } catch (TransactionConflictException e) {
              failed.incrementAndGet();
            } catch (Exception e) { // the crash: this transfer's outcome is unknown, but it is atomic
              failed.incrementAndGet();
            }
          }
          return null;
        }));
      }

      Random chaos = new Random(42);
      for (int crash = 0; crash < CRASHES; crash++) {
        awaitMoreTransfers(committed); // every crash comes with transfers in flight, after some went through
        if (crash == CRASHES / 2) { // two at once: leaders and members of the same groups among them
          cluster.crashRegionServers(0, 1);
          cluster.getTestingUtility().getMiniHBaseCluster().startRegionServer();
        } else {
          int live = cluster.getTestingUtility().getMiniHBaseCluster().getLiveRegionServerThreads().size();
          cluster.crashRegionServer(chaos.nextInt(live));
        }
        cluster.getTestingUtility().getMiniHBaseCluster().startRegionServer();
      }
      awaitMoreTransfers(committed); // transfers go through again after the last crash
      running.set(false);
      for (Future<?> w : workers) {
        w.get(2, TimeUnit.MINUTES);
      }
      load.shutdown();
      assertThat(committed.get()).as("transfers went through between the crashes").isPositive();

      for (int g = 0; g < GROUPS; g++) {
        List<byte[]> rows = members.get(g);
        long total = groups.get(g).transact(txn -> {
          long sum = 0;
          for (byte[] row : rows) {
            sum += Accounts.balance(txn.get(BANK, new Get(row)));
          }
          return sum;
        });
        assertThat(total).as("group %d inside G-Store", g).isEqualTo(OPENING * ACCOUNTS);
        groups.get(g).delete();
      }
      try (Table table = cluster.getConnection().getTable(BANK)) {
        for (int g = 0; g < GROUPS; g++) {
          long total = 0;
          for (byte[] row : members.get(g)) {
            total += Accounts.balance(table.get(new Get(row)));
          }
          assertThat(total).as("group %d in HBase after its delete", g).isEqualTo(OPENING * ACCOUNTS);
        }
      }
      System.out.printf("crash chaos: %d crash rounds, %d transfers committed, %d failed or conflicted%n", CRASHES,
          committed.get(), failed.get());
    }
  }

  /** Waits until 20 more transfers have committed since the call. */
  private static void awaitMoreTransfers(AtomicLong committed) {
    long target = committed.get() + 20;
    Awaitility.await().atMost(Duration.ofMinutes(2)).until(() -> committed.get() >= target);
  }

}
