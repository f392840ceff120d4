package org.gstore.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.gstore.testing.Accounts.BALANCE;
import static org.gstore.testing.Accounts.CF;
import static org.gstore.testing.Accounts.balance;

import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.metrics.Counter;
import org.apache.hadoop.hbase.metrics.MetricRegistries;
import org.apache.hadoop.hbase.metrics.MetricRegistry;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.CommonFSUtils;
import org.gstore.client.GStoreClient;
import org.gstore.client.GroupNotFoundException;
import org.gstore.client.GroupSpec;
import org.gstore.client.KeyGroup;
import org.gstore.client.NotGroupMemberException;
import org.gstore.client.RowKey;
import org.gstore.client.Transaction;
import org.gstore.client.TransactionConflictException;
import org.gstore.common.wire.generated.GStoreProtos.GStoreTxnService;
import org.gstore.common.wire.generated.GStoreProtos.LoadRowsRequest;
import org.gstore.common.wire.generated.GStoreProtos.LoadRowsResponse;
import org.gstore.common.wire.generated.KeyGroupingProtos.KeyProto;
import org.gstore.recovery.hbase.WalFiles;
import org.gstore.testing.junit.WithMiniCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Serializable transactions on groups: invariants under concurrency, snapshots, durability and shipping. */
@WithMiniCluster(regionServers = 3)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class TransactionsIT {
  private static final TableName ACCOUNTS = TableName.valueOf("txn_accounts");
  private static GStoreClient client;
  private static Table table;

  @BeforeAll
  static void setUp(GStoreMiniCluster cluster) throws Exception {
    table = cluster.createTable(ACCOUNTS, new byte[][] {CF}, TestRows.splits(6));
    client = GStoreClient.create(cluster.getConnection());
  }

  @AfterAll
  static void tearDown() throws Exception {
    client.close();
    table.close();
  }

  @Test
  void moneyIsConservedWhileManyThreadsTransferWithinSeveralGroups() throws Exception {
    int groups = 3;
    int accounts = 6;
    long initial = 1_000;
    List<KeyGroup> games = new ArrayList<>();
    for (int g = 0; g < groups; g++) {
      List<byte[]> members = TestRows.rows(1_000 + g * 100, accounts);
      for (byte[] row : members) {
        table.put(new Put(row).addColumn(CF, BALANCE, Bytes.toBytes(initial)));
      }
      games.add(client.createGroup(GroupSpec.builder().id("bank-" + g).members(ACCOUNTS, members).build()));
    }
    AtomicBoolean running = new AtomicBoolean(true);
    AtomicInteger transfers = new AtomicInteger();
    List<String> violations = new java.util.concurrent.CopyOnWriteArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    List<Future<?>> work = new ArrayList<>();
    for (int t = 0; t < 6; t++) {
      int thread = t;
      work.add(pool.submit(() -> {
        Random random = new Random(thread);
        for (int i = 0; i < 60; i++) {
          KeyGroup game = games.get(random.nextInt(groups));
          List<RowKey> members = new ArrayList<>(game.members());
          RowKey from = members.get(random.nextInt(members.size()));
          RowKey to = members.get(random.nextInt(members.size()));
          long amount = 1 + random.nextInt(50);
          game.transact(txn -> {
            long a = balance(txn.get(ACCOUNTS, new Get(from.row())));
            long b = balance(txn.get(ACCOUNTS, new Get(to.row())));
            if (!from.equals(to) && a >= amount) {
              txn.put(ACCOUNTS, new Put(from.row()).addColumn(CF, BALANCE, Bytes.toBytes(a - amount)));
              txn.put(ACCOUNTS, new Put(to.row()).addColumn(CF, BALANCE, Bytes.toBytes(b + amount)));
            }
            return null;
          });
          transfers.incrementAndGet();
        }
        return null;
      }));
    }
    for (int t = 0; t < 2; t++) {
      work.add(pool.submit(() -> {
        while (running.get()) {
          for (KeyGroup game : games) {
            try (Transaction txn = game.begin()) {
              List<Get> gets = new ArrayList<>();
              game.members().forEach(m -> gets.add(new Get(m.row())));
              long total = 0;
              for (Result r : txn.get(ACCOUNTS, gets)) {
                total += balance(r);
              }
              txn.commit(); // read-only: never conflicts
              if (total != accounts * initial) {
                violations.add(game.id() + " total " + total);
              }
            }
          }
        }
        return null;
      }));
    }
    for (Future<?> w : work.subList(0, 6)) {
      w.get(2, TimeUnit.MINUTES);
    }
    running.set(false);
    for (Future<?> w : work) {
      w.get(1, TimeUnit.MINUTES);
    }
    pool.shutdown();
    assertThat(violations).isEmpty();
    assertThat(transfers.get()).isEqualTo(360);
    for (KeyGroup game : games) {
      game.delete();
    }
    long total = 0;
    for (KeyGroup game : games) {
      for (RowKey m : game.members()) {
        total += balance(table.get(new Get(m.row())));
      }
    }
    assertThat(total).as("after delete, plain HBase holds every cent").isEqualTo(groups * accounts * initial);
  }

  @Test
  void concurrentReadModifyWriteIncrementsLoseNothing() throws Exception {
    byte[] counter = TestRows.row(2_001);
    KeyGroup g = client.createGroup(GroupSpec.builder().id("counter").leader(ACCOUNTS, counter)
        .members(ACCOUNTS, TestRows.rows(2_002, 3)).build());
    int threads = 4;
    int increments = 40;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<Future<?>> work = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      work.add(pool.submit(() -> {
        for (int i = 0; i < increments; i++) {
          g.transact(txn -> {
            long v = balance(txn.get(ACCOUNTS, new Get(counter)));
            txn.put(ACCOUNTS, new Put(counter).addColumn(CF, BALANCE, Bytes.toBytes(v + 1)));
            return null;
          });
        }
        return null;
      }));
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

  @Test
  void aLongReadOnlyTransactionSeesOneSnapshotWhileWritersCommit() throws Exception {
    byte[] a = TestRows.row(3_001);
    byte[] b = TestRows.row(3_002);
    KeyGroup g = client.createGroup(GroupSpec.builder().id("snap").members(ACCOUNTS, List.of(a, b)).build());
    g.transact(txn -> {
      txn.put(ACCOUNTS, new Put(a).addColumn(CF, BALANCE, Bytes.toBytes(1L)));
      txn.put(ACCOUNTS, new Put(b).addColumn(CF, BALANCE, Bytes.toBytes(1L)));
      return null;
    });
    try (Transaction reader = g.begin()) {
      assertThat(balance(reader.get(ACCOUNTS, new Get(a)))).isEqualTo(1);
      for (long v = 2; v <= 6; v++) {
        long value = v;
        g.transact(txn -> {
          txn.put(ACCOUNTS, new Put(a).addColumn(CF, BALANCE, Bytes.toBytes(value)));
          txn.put(ACCOUNTS, new Put(b).addColumn(CF, BALANCE, Bytes.toBytes(value)));
          return null;
        });
      }
      assertThat(balance(reader.get(ACCOUNTS, new Get(b)))).as("b as of the snapshot, equal to a").isEqualTo(1);
      reader.commit();
    }
    try (Transaction writer = g.begin()) {
      long seen = balance(writer.get(ACCOUNTS, new Get(a)));
      g.transact(txn -> {
        txn.put(ACCOUNTS, new Put(a).addColumn(CF, BALANCE, Bytes.toBytes(99L)));
        return null;
      });
      writer.put(ACCOUNTS, new Put(b).addColumn(CF, BALANCE, Bytes.toBytes(seen)));
      assertThatThrownBy(writer::commit).as("a read-write transaction whose read went stale aborts")
          .isInstanceOf(TransactionConflictException.class);
    }
    g.delete();
  }

  @Test
  void transactionsOnlyTouchMembersAndEndWithTheirGroup() throws Exception {
    KeyGroup g = client.createGroup(GroupSpec.builder().id("edges").members(ACCOUNTS, TestRows.rows(4_001, 2)).build());
    try (Transaction txn = g.begin()) {
      assertThatThrownBy(() -> txn.get(ACCOUNTS, new Get(TestRows.row(4_999))))
          .isInstanceOf(NotGroupMemberException.class);
      assertThatThrownBy(() -> txn.put(ACCOUNTS, new Put(TestRows.row(4_999)).addColumn(CF, BALANCE,
          Bytes.toBytes(1L)))).isInstanceOf(NotGroupMemberException.class);
      assertThatThrownBy(() -> txn.put(ACCOUNTS, List.of(
          new Put(TestRows.row(4_001)).addColumn(CF, BALANCE, Bytes.toBytes(9L)),
          new Put(TestRows.row(4_999)).addColumn(CF, BALANCE, Bytes.toBytes(9L)))))
          .isInstanceOf(NotGroupMemberException.class);
      assertThat(txn.get(ACCOUNTS, new Get(TestRows.row(4_001))).isEmpty())
          .as("a batch with a non-member row buffers none of its puts").isTrue();
    }
    g.transact(txn -> {
      txn.put(ACCOUNTS, List.of(new Put(TestRows.row(4_001)).addColumn(CF, BALANCE, Bytes.toBytes(3L)),
          new Put(TestRows.row(4_002)).addColumn(CF, BALANCE, Bytes.toBytes(4L))));
      return null;
    });
    g.transact(txn -> {
      Result[] both = txn.get(ACCOUNTS, List.of(new Get(TestRows.row(4_002)), new Get(TestRows.row(4_001))));
      assertThat(balance(both[0])).as("results in the order of the gets").isEqualTo(4);
      assertThat(balance(both[1])).isEqualTo(3);
      txn.delete(ACCOUNTS, new Delete(TestRows.row(4_001)));
      txn.delete(ACCOUNTS, new Delete(TestRows.row(4_002)));
      return null;
    });
    try (Transaction abandoned = g.begin()) {
      abandoned.put(ACCOUNTS, new Put(TestRows.row(4_001)).addColumn(CF, BALANCE, Bytes.toBytes(5L)));
    } // closed without commit: nothing happens, nobody waits
    g.transact(txn -> {
      assertThat(txn.get(ACCOUNTS, new Get(TestRows.row(4_001))).isEmpty()).isTrue();
      txn.put(ACCOUNTS, new Put(TestRows.row(4_001)).addColumn(CF, BALANCE, Bytes.toBytes(7L))
          .addColumn(CF, Bytes.toBytes("note"), Bytes.toBytes("x")));
      txn.delete(ACCOUNTS, new Delete(TestRows.row(4_002)));
      return null;
    });
    g.transact(txn -> {
      Result r = txn.get(ACCOUNTS, new Get(TestRows.row(4_001)).addColumn(CF, BALANCE));
      assertThat(r.size()).as("column selection").isEqualTo(1);
      txn.delete(ACCOUNTS, new Delete(TestRows.row(4_001)).addColumns(CF, Bytes.toBytes("note")));
      return null;
    });
    g.delete();
    Result shipped = table.get(new Get(TestRows.row(4_001)));
    assertThat(balance(shipped)).isEqualTo(7);
    assertThat(shipped.getValue(CF, Bytes.toBytes("note"))).as("the column delete was shipped").isNull();
    assertThatThrownBy(() -> g.transact(txn -> txn.get(ACCOUNTS, new Get(TestRows.row(4_001)))))
        .isInstanceOf(GroupNotFoundException.class);
  }

  @Test
  void aGroupsFirstCommitIsStampedAfterEveryMembersNewestDeleteMarkerInEveryRegion() throws Exception {
    List<byte[]> rows = TestRows.rows(5_100, 10); // every bucket: spread over all six regions, all three servers
    long newestMarker = 0;
    long now = System.currentTimeMillis();
    for (int i = 0; i < rows.size(); i++) {
      table.put(new Put(rows.get(i)).addColumn(CF, Bytes.toBytes("note"), now + 1_000, Bytes.toBytes("n" + i)));
      long marker = now + 2_000 + 100L * i; // each row's newest cell, the newest in bucket 9's region
      table.delete(new Delete(rows.get(i)).addColumns(CF, Bytes.toBytes("gone"), marker));
      newestMarker = Math.max(newestMarker, marker);
    }
    long atServers = counter("groupLoadRowsAtServers");
    long throughClient = counter("groupLoadRowsThroughClient");
    KeyGroup g = client.createGroup(GroupSpec.builder().id("after-markers").members(ACCOUNTS, rows).build());
    long committedAt;
    try (Transaction txn = g.begin()) {
      for (int i = 0; i < rows.size(); i++) {
        assertThat(txn.get(ACCOUNTS, new Get(rows.get(i))).getValue(CF, Bytes.toBytes("note")))
            .as("the cache holds the row's cell").isEqualTo(Bytes.toBytes("n" + i));
        txn.put(ACCOUNTS, new Put(rows.get(i)).addColumn(CF, BALANCE, Bytes.toBytes(7L)));
      }
      txn.commit();
      committedAt = txn.commitTimestamp();
    }
    assertThat(committedAt).as("the loaded cache saw the markers of every region").isGreaterThan(newestMarker);
    assertThat(counter("groupLoadRowsAtServers") - atServers).as("rows read by the servers hosting them")
        .isGreaterThanOrEqualTo(rows.size());
    assertThat(counter("groupLoadRowsThroughClient") - throughClient).as("rows read through HBase's client")
        .isZero();
    g.delete();
    for (byte[] row : rows) {
      assertThat(balance(table.get(new Get(row)))).as("no marker hides the commit on " + Bytes.toString(row))
          .isEqualTo(7);
    }
  }

  @Test
  void aServerReadsTheRowsItHostsForALoadingLeaderAndLeavesTheOthersToIt() throws Exception {
    byte[] here = null;
    byte[] there = null;
    ServerName server = null;
    try (RegionLocator locator = table.getRegionLocator()) {
      for (byte[] row : TestRows.rows(5_300, 10)) {
        ServerName s = locator.getRegionLocation(row).getServerName();
        if (here == null) {
          here = row;
          server = s;
        } else if (!s.equals(server)) {
          there = row;
          break;
        }
      }
    }
    assertThat(there).as("the rows span two servers").isNotNull();
    table.put(new Put(here).addColumn(CF, BALANCE, 1_234L, Bytes.toBytes(5L)));
    table.delete(new Delete(here).addColumn(CF, Bytes.toBytes("gone"), 5_678L));

    LoadRowsResponse r = GStoreTxnService.newBlockingStub(table.coprocessorService(here)).loadRows(null,
        LoadRowsRequest.newBuilder().addRows(key(here)).addRows(key(there)).build());

    assertThat(r.getRowsCount()).isEqualTo(1);
    assertThat(r.getRows(0).getKey()).isEqualTo(key(here));
    assertThat(r.getRows(0).getVersion()).as("its newest timestamp, the delete marker's").isEqualTo(5_678L);
    assertThat(r.getRows(0).getColumnsList()).singleElement()
        .satisfies(c -> assertThat(c.getValue().toByteArray()).isEqualTo(Bytes.toBytes(5L)));
    assertThat(r.getElsewhereList()).as("a row of another server").containsExactly(key(there));
  }

  private static KeyProto key(byte[] row) {
    return KeyProto.newBuilder().setTable(ACCOUNTS.getNameAsString()).setRow(ByteString.copyFrom(row)).build();
  }

  @Test
  void shippedCellsCarryTheCommitTimestampAndPlainWritesAfterDeleteWin() throws Exception {
    byte[] row = TestRows.row(5_001);
    table.put(new Put(row).addColumn(CF, BALANCE, Bytes.toBytes(10L)));
    KeyGroup g = client.createGroup(GroupSpec.builder().id("ship").members(ACCOUNTS, TestRows.rows(5_001, 3)).build());
    long[] committedAt = new long[1];
    try (Transaction txn = g.begin()) {
      txn.put(ACCOUNTS, new Put(row).addColumn(CF, BALANCE, Bytes.toBytes(20L)));
      txn.commit();
      committedAt[0] = txn.commitTimestamp();
    }
    g.delete();
    Result r = table.get(new Get(row));
    assertThat(balance(r)).isEqualTo(20);
    assertThat(r.getColumnLatestCell(CF, BALANCE).getTimestamp()).isEqualTo(committedAt[0]);
    table.put(new Put(row).addColumn(CF, BALANCE, Bytes.toBytes(30L)));
    assertThat(balance(table.get(new Get(row)))).as("a plain write after delete wins").isEqualTo(30);
  }

  @Test
  void everyAcknowledgedCommitIsInTheWalAndSyncsCarrySeveralCommits(GStoreMiniCluster cluster) throws Exception {
    long syncsBefore = counter("walSyncs");
    long recordsBefore = counter("walRecords");
    List<KeyGroup> groups = new ArrayList<>();
    for (int g = 0; g < 8; g++) {
      groups.add(client.createGroup(GroupSpec.builder().id("wal-" + g)
          .members(ACCOUNTS, TestRows.rows(6_000 + g * 10, 2))
          .build()));
    }
    Set<Long> acknowledged = java.util.concurrent.ConcurrentHashMap.newKeySet();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    List<Future<?>> work = new ArrayList<>();
    for (KeyGroup g : groups) {
      work.add(pool.submit(() -> {
        for (int i = 0; i < 25; i++) {
          try (Transaction txn = g.begin()) {
            txn.put(ACCOUNTS, new Put(g.leader().row()).addColumn(CF, BALANCE, Bytes.toBytes((long) i)));
            txn.commit();
            acknowledged.add(txn.commitTimestamp() * 1_000 + Math.floorMod(g.id().name().hashCode(), 1_000));
          }
        }
        return null;
      }));
    }
    for (Future<?> w : work) {
      w.get(2, TimeUnit.MINUTES);
    }
    pool.shutdown();
    long syncs = counter("walSyncs") - syncsBefore;
    long records = counter("walRecords") - recordsBefore;
    assertThat(records).isGreaterThanOrEqualTo(200);
    assertThat((double) records / syncs).as("commits per WAL sync (%d records, %d syncs)", records, syncs)
        .isGreaterThan(1.0);
    System.out.printf("WAL group commit: %d records in %d syncs (%.2f per sync)%n", records, syncs,
        (double) records / syncs);

    FileSystem fs = CommonFSUtils.getRootDir(cluster.getConfiguration()).getFileSystem(cluster.getConfiguration());
    Path walRoot = new Path(CommonFSUtils.getRootDir(cluster.getConfiguration()), "gstore-wal");
    Set<Long> inWal = new HashSet<>();
    for (Path file : WalFiles.files(fs, walRoot)) {
      WalFiles.read(fs, file).records().forEach(rec -> inWal.add(rec.getCommitTs() * 1_000
          + Math.floorMod(rec.getGroup().getName().hashCode(), 1_000)));
    }
    assertThat(inWal).containsAll(acknowledged);
    for (KeyGroup g : groups) {
      g.delete();
    }

    // A log cut mid-record, as a crash leaves it, is read up to the tear.
    Path full = WalFiles.files(fs, walRoot).stream()
        .filter(f -> uncheckedRead(fs, f).records().size() >= 3).findFirst().orElseThrow();
    WalFiles.Contents whole = WalFiles.read(fs, full);
    Path torn = new Path(walRoot.getParent(), "torn-copy.wal");
    long cut = whole.validBytes() - 5;
    try (java.io.InputStream in = fs.open(full); java.io.OutputStream out = fs.create(torn, true)) {
      byte[] bytes = in.readNBytes((int) cut);
      out.write(bytes);
    }
    WalFiles.Contents read = WalFiles.read(fs, torn);
    assertThat(read.records()).isEqualTo(whole.records().subList(0, whole.records().size() - 1));
    assertThat(read.stoppedBecause()).contains("torn");
    fs.delete(torn, false);
  }

  private static WalFiles.Contents uncheckedRead(FileSystem fs, Path file) {
    try {
      return WalFiles.read(fs, file);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static long counter(String name) {
    long total = 0;
    for (MetricRegistry registry : MetricRegistries.global().getMetricRegistries()) {
      if (registry.getMetricRegistryInfo().getMetricsJmxContext().contains("GStoreRegionCoprocessor")) {
        total += registry.get(name).map(m -> ((Counter) m).getCount()).orElse(0L);
      }
    }
    return total;
  }
}
