package org.gstore.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.gstore.testing.Accounts.CF;
import static org.gstore.testing.Accounts.balance;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.gstore.client.GStoreClient;
import org.gstore.client.GroupSpec;
import org.gstore.client.KeyGroup;
import org.gstore.client.Transaction;
import org.gstore.client.TransactionConflictException;
import org.gstore.testing.junit.WithMiniCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Transactions stay serializable when the leader's cache is reloaded: a region move or split makes a new host load
 * the group from HBase, and a transaction that began against the old cache must not commit over, or read past,
 * what was committed before the reload.
 */
@WithMiniCluster(regionServers = 3)
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class TransactionsAcrossMovesIT {
  private static final TableName ACCOUNTS = TableName.valueOf("moving_accounts");
  private static GStoreMiniCluster cluster;
  private static GStoreClient client;
  private static Table table;

  @BeforeAll
  static void setUp(GStoreMiniCluster c) throws Exception {
    cluster = c;
    table = cluster.createTable(ACCOUNTS, new byte[][] {CF}, TestRows.splits(6));
    client = GStoreClient.create(cluster.getConnection());
  }

  @AfterAll
  static void tearDown() throws Exception {
    client.close();
    table.close();
  }

  @Test
  void aTransactionThatReadBeforeTheLeaderMovedCannotOverwriteACommitMadeBeforeTheMove() throws Exception {
    byte[] x = TestRows.row(100);
    KeyGroup g = client.createGroup(GroupSpec.builder().id("lost-update").leader(ACCOUNTS, x)
        .member(ACCOUNTS, TestRows.row(101)).build());
    try (Transaction stale = g.begin()) {
      long read = balance(stale.get(ACCOUNTS, new Get(x)));
      g.transact(txn -> {
        txn.put(ACCOUNTS, balance(x, balance(txn.get(ACCOUNTS, new Get(x))) + 10));
        return null;
      });
      TestRegions.move(cluster, ACCOUNTS, x);
      stale.put(ACCOUNTS, balance(x, read + 1));
      assertThatThrownBy(stale::commit).isInstanceOf(TransactionConflictException.class);
    }
    try (Transaction txn = g.begin()) {
      assertThat(balance(txn.get(ACCOUNTS, new Get(x)))).isEqualTo(10);
    }
    g.delete();
    assertThat(balance(table.get(new Get(x)))).isEqualTo(10);
  }

  @Test
  void aReadOnlyTransactionThatStraddlesAMoveNeverSeesTwoStates() throws Exception {
    byte[] a = TestRows.row(110);
    byte[] b = TestRows.row(111);
    table.put(balance(a, 100));
    table.put(balance(b, 100));
    KeyGroup g = client.createGroup(GroupSpec.builder().id("straddle").leader(ACCOUNTS, a)
        .member(ACCOUNTS, b).build());
    try (Transaction reader = g.begin()) {
      long seenA = balance(reader.get(ACCOUNTS, new Get(a)));
      g.transact(txn -> {
        txn.put(ACCOUNTS, balance(a, balance(txn.get(ACCOUNTS, new Get(a))) - 30));
        txn.put(ACCOUNTS, balance(b, balance(txn.get(ACCOUNTS, new Get(b))) + 30));
        return null;
      });
      TestRegions.move(cluster, ACCOUNTS, a);
      // its snapshot is gone with the old cache: the read is refused rather than mixing two states
      assertThatThrownBy(() -> reader.get(ACCOUNTS, new Get(b))).isInstanceOf(TransactionConflictException.class);
      assertThat(seenA).isEqualTo(100);
    }
    long total = g.transact(txn -> balance(txn.get(ACCOUNTS, new Get(a))) + balance(txn.get(ACCOUNTS, new Get(b))));
    assertThat(total).isEqualTo(200);
    g.delete();
  }

  @Test
  void transactionsGoOnAfterTheLeaderRegionSplitsAndMovesBack() throws Exception {
    TableName name = TableName.valueOf("splitting_accounts");
    try (Table t = cluster.createTable(name, new byte[][] {CF}, new byte[][] {Bytes.toBytes("5")})) {
      byte[] leader = TestRows.row(2);
      byte[] member = TestRows.row(8);
      KeyGroup g = client.createGroup(GroupSpec.builder().id("splitter").leader(name, leader)
          .member(name, member).build());
      increment(g, name, leader);
      TestRegions.split(cluster, name, "3");
      increment(g, name, leader);
      TestRegions.move(cluster, name, leader);
      increment(g, name, leader);
      TestRegions.move(cluster, name, leader);
      increment(g, name, leader);
      try (Transaction txn = g.begin()) {
        assertThat(balance(txn.get(name, new Get(leader)))).isEqualTo(4);
      }
      g.delete();
      assertThat(balance(t.get(new Get(leader)))).isEqualTo(4);
    }
  }

  @Test
  void transactRetriesThroughLeaderMovesAndLosesNoIncrement() throws Exception {
    byte[] counter = TestRows.row(120);
    KeyGroup g = client.createGroup(GroupSpec.builder().id("busy-mover").leader(ACCOUNTS, counter)
        .member(ACCOUNTS, TestRows.row(121)).build());
    int threads = 2;
    int increments = 25;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<Future<?>> work = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      work.add(pool.submit(() -> {
        for (int n = 0; n < increments; n++) {
          increment(g, ACCOUNTS, counter);
        }
        return null;
      }));
    }
    for (int moves = 0; moves < 3; moves++) {
      TestRegions.move(cluster, ACCOUNTS, counter);
    }
    for (Future<?> w : work) {
      w.get(2, TimeUnit.MINUTES);
    }
    pool.shutdown();
    try (Transaction txn = g.begin()) {
      assertThat(balance(txn.get(ACCOUNTS, new Get(counter)))).isEqualTo((long) threads * increments);
    }
    g.delete();
    assertThat(balance(table.get(new Get(counter)))).isEqualTo((long) threads * increments);
  }

  private static void increment(KeyGroup g, TableName name, byte[] row) throws Exception {
    g.transact(txn -> {
      txn.put(name, balance(row, balance(txn.get(name, new Get(row))) + 1));
      return null;
    });
  }
}
