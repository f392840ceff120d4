package org.gstore.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.gstore.testing.Accounts.CF;
import static org.gstore.testing.Accounts.balance;

import com.google.protobuf.ByteString;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.gstore.client.GStoreClient;
import org.gstore.client.GroupSpec;
import org.gstore.client.KeyGroup;
import org.gstore.client.Transaction;
import org.gstore.client.TransactionConflictException;
import org.awaitility.Awaitility;
import org.gstore.common.wire.generated.GStoreProtos.ColumnProto;
import org.gstore.common.wire.generated.GStoreProtos.CommitRequest;
import org.gstore.common.wire.generated.GStoreProtos.CommitResponse;
import org.gstore.common.wire.generated.GStoreProtos.GStoreTxnService;
import org.gstore.common.wire.generated.GStoreProtos.ReadRequest;
import org.gstore.common.wire.generated.GStoreProtos.ReadResponse;
import org.gstore.common.wire.generated.GStoreProtos.ReadStampProto;
import org.gstore.common.wire.generated.GStoreProtos.RowVersionProto;
import org.gstore.common.wire.generated.GStoreProtos.RowWriteProto;
import org.gstore.common.wire.generated.GStoreProtos.TxnOutcomeProto;
import org.gstore.common.wire.generated.KeyGroupingProtos.KeyProto;
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

  /**
   * The hazard of a commit whose answer is lost as its leader region moves: the retry reaches the next host, which
   * did not commit it. It must answer with the first outcome; a conflict would make the client run it again.
   */
  @Test
  void aCommitRetriedByteForByteAfterItsLeaderMovedGetsItsFirstOutcome() throws Exception {
    byte[] from = TestRows.row(130);
    byte[] to = TestRows.row(131);
    table.put(balance(from, 100));
    table.put(balance(to, 100));
    KeyGroup g = client.createGroup(GroupSpec.builder().id("lost-answer").leader(ACCOUNTS, from)
        .member(ACCOUNTS, to).build());
    ReadResponse read = txnService(from).read(null, ReadRequest.newBuilder().setName("lost-answer")
        .setLeader(key(from)).addRows(key(from)).addRows(key(to)).build());
    CommitRequest.Builder transfer = CommitRequest.newBuilder().setName("lost-answer").setLeader(key(from))
        .setTxnId("answer-lost-in-a-move").setIncarnation(read.getIncarnation()).setSeenTs(read.getSnapshot());
    for (RowVersionProto row : read.getRowsList()) {
      long moved = row.getKey().equals(key(from)) ? -10 : 10;
      transfer.addReads(ReadStampProto.newBuilder().setKey(row.getKey()).setVersion(row.getVersion()))
          .addWrites(RowWriteProto.newBuilder().setKey(row.getKey()).addColumns(ColumnProto.newBuilder()
              .setFamily(ByteString.copyFrom(CF)).setQualifier(ByteString.copyFrom(Accounts.BALANCE))
              .setValue(ByteString.copyFrom(Bytes.toBytes(100 + moved)))));
    }
    CommitResponse first = txnService(from).commit(null, transfer.build());
    assertThat(first.getOutcome()).isEqualTo(TxnOutcomeProto.COMMITTED);

    TestRegions.move(cluster, ACCOUNTS, from);
    CommitResponse retried = txnService(from).commit(null, transfer.build());
    assertThat(retried.getOutcome()).isEqualTo(TxnOutcomeProto.COMMITTED);
    assertThat(retried.getCommitTs()).isEqualTo(first.getCommitTs());
    g.delete();
    assertThat(balance(table.get(new Get(from)))).isEqualTo(90);
    assertThat(balance(table.get(new Get(to)))).isEqualTo(110);
  }

  /**
   * Transfers through {@code transact} while the leader region moves, by a client whose HBase retries give up at
   * once: its own commit retries carry each transfer across the move, and each takes effect exactly once.
   */
  @Test
  void transfersThroughLeaderMovesTakeEffectExactlyOnceWhenHBasesRetriesGiveUp() throws Exception {
    byte[] from = TestRows.row(140);
    byte[] to = TestRows.row(141);
    table.put(balance(from, 1_000_000));
    table.put(balance(to, 0));
    try (GStoreClient impatient = GStoreClient.create(impatient(cluster.getConfiguration()))) {
      KeyGroup g = impatient.createGroup(GroupSpec.builder().id("moving-transfers").leader(ACCOUNTS, from)
          .member(ACCOUNTS, to).build());
      TransferStream.Counts counts;
      try (TransferStream transfers = new TransferStream(g, ACCOUNTS, from, to)) {
        for (int moves = 0; moves < 3; moves++) {
          long before = transfers.returned();
          Awaitility.await().atMost(Duration.ofMinutes(1)).until(() -> transfers.returned() > before + 20);
          TestRegions.move(cluster, ACCOUNTS, from);
        }
        long before = transfers.returned();
        Awaitility.await().atMost(Duration.ofMinutes(1)).until(() -> transfers.returned() > before + 20);
        counts = transfers.stop();
      }
      assertThat(counts.unknown()).as("every commit got its answer within the deadline").isZero();
      g.delete();
      assertThat(balance(table.get(new Get(to)))).as("each returned transfer applied once, no other")
          .isEqualTo(counts.returned());
      assertThat(balance(table.get(new Get(from)))).isEqualTo(1_000_000 - counts.returned());
    }
  }

  /** A client whose HBase calls give up after one try: G-Store's own commit retries must carry it. */
  static Configuration impatient(Configuration base) {
    Configuration conf = new Configuration(base);
    conf.setInt(HConstants.HBASE_CLIENT_RETRIES_NUMBER, 1);
    conf.setLong(HConstants.HBASE_CLIENT_PAUSE, 20);
    conf.setLong(GStoreClient.COMMIT_DEADLINE, 120_000);
    return conf;
  }

  private static GStoreTxnService.BlockingInterface txnService(byte[] leader) {
    return GStoreTxnService.newBlockingStub(table.coprocessorService(leader));
  }

  private static KeyProto key(byte[] row) {
    return KeyProto.newBuilder().setTable(ACCOUNTS.getNameAsString()).setRow(ByteString.copyFrom(row)).build();
  }

  private static void increment(KeyGroup g, TableName name, byte[] row) throws Exception {
    g.transact(txn -> {
      txn.put(name, balance(row, balance(txn.get(name, new Get(row))) + 1));
      return null;
    });
  }
}
