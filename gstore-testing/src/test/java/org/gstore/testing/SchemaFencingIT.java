package org.gstore.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.Coprocessor;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.CoprocessorDescriptorBuilder;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.coprocessor.ObserverContext;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessor;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.RegionObserver;
import org.apache.hadoop.hbase.io.hfile.CacheConfig;
import org.apache.hadoop.hbase.io.hfile.HFile;
import org.apache.hadoop.hbase.io.hfile.HFileContextBuilder;
import org.apache.hadoop.hbase.tool.BulkLoadHFiles;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.HFileTestUtil;
import org.apache.hadoop.hbase.util.Pair;
import org.gstore.client.GStoreClient;
import org.gstore.client.GroupSpec;
import org.gstore.client.KeyGroup;
import org.gstore.coprocessor.GStoreRegionCoprocessor;
import org.gstore.testing.junit.WithMiniCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Operations that bypass the fence (bulk loads) or would take grouped rows away (dropping the table, its families
 * or G-Store) are refused while groups hold rows, and allowed again once the groups are deleted.
 */
@WithMiniCluster(regionServers = 3)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class SchemaFencingIT {
  private static final byte[] CF = Bytes.toBytes("f");
  private static final byte[] EXTRA = Bytes.toBytes("extra");

  @Test
  void schemaChangesThatWouldUnfenceGroupedRowsAreRefusedUntilTheGroupsAreDeleted(GStoreMiniCluster cluster)
      throws Exception {
    TableName name = TableName.valueOf("schema_guarded");
    try (Table table = cluster.createTable(name, new byte[][] {CF, EXTRA}, TestRows.splits(3));
        GStoreClient client = GStoreClient.create(cluster.getConnection());
        Admin admin = cluster.getConnection().getAdmin()) {
      KeyGroup g = client.createGroup(GroupSpec.builder().id("guarded").leader(name, TestRows.row(1))
          .member(name, TestRows.row(5)).build());
      TableDescriptor current = admin.getDescriptor(name);

      assertThatThrownBy(() -> admin.deleteColumnFamily(name, EXTRA)).hasMessageContaining("guarded");
      TableDescriptor withoutGStore = TableDescriptorBuilder.newBuilder(current)
          .removeCoprocessor(GStoreRegionCoprocessor.class.getName()).build();
      assertThatThrownBy(() -> admin.modifyTable(withoutGStore)).hasMessageContaining("guarded");
      admin.disableTable(name);
      assertThatThrownBy(() -> admin.truncateTable(name, true)).hasMessageContaining("guarded");
      assertThatThrownBy(() -> admin.deleteTable(name)).hasMessageContaining("guarded");
      admin.enableTable(name);
      cluster.getTestingUtility().waitTableAvailable(name);
      for (String state : new String[] {"gstore:owners", "gstore:groups", "gstore:outcomes"}) {
        TableName stateTable = TableName.valueOf(state);
        assertThatThrownBy(() -> admin.deleteTable(stateTable)).as(state)
            .hasMessageContaining("G-Store's groups hold rows");
        assertThatThrownBy(() -> admin.truncateTable(stateTable, true)).as(state)
            .hasMessageContaining("G-Store's groups hold rows");
      }
      assertThat(admin.getDescriptor(name).hasColumnFamily(EXTRA)).isTrue();
      assertThat(admin.getDescriptor(name).hasCoprocessor(GStoreRegionCoprocessor.class.getName())).isTrue();
      g = client.getGroup(g.id());
      g.delete();

      admin.deleteColumnFamily(name, EXTRA);
      assertThat(admin.getDescriptor(name).hasColumnFamily(EXTRA)).isFalse();
      admin.disableTable(name);
      admin.deleteTable(name);
      assertThat(admin.tableExists(name)).isFalse();
    }
  }

  @Test
  void aSnapshotIsRestoredOverATableOnlyOnceItsGroupsAreDeleted(GStoreMiniCluster cluster) throws Exception {
    TableName name = TableName.valueOf("restore_guarded");
    byte[] row = TestRows.row(3);
    byte[] q = Bytes.toBytes("q");
    try (Table table = cluster.createTable(name, new byte[][] {CF}, null);
        GStoreClient client = GStoreClient.create(cluster.getConnection());
        Admin admin = cluster.getConnection().getAdmin()) {
      table.put(new org.apache.hadoop.hbase.client.Put(row).addColumn(CF, q, Bytes.toBytes("in the snapshot")));
      admin.snapshot("restore_guarded_snap", name);
      KeyGroup g = client.createGroup(GroupSpec.builder().id("restored").leader(name, row).build());
      g.transact(txn -> {
        txn.put(name, new org.apache.hadoop.hbase.client.Put(row).addColumn(CF, q, Bytes.toBytes("committed")));
        return null;
      });

      admin.disableTable(name);
      assertThatThrownBy(() -> admin.restoreSnapshot("restore_guarded_snap"))
          .hasStackTraceContaining("cannot restore snapshot restore_guarded_snap").hasStackTraceContaining("restored@");
      admin.enableTable(name);
      cluster.getTestingUtility().waitTableAvailable(name);
      g = client.getGroup(g.id());
      String inGroup = g.transact(txn -> Bytes.toString(txn.get(name, new Get(row)).getValue(CF, q)));
      assertThat(inGroup).as("the group's commit is untouched").isEqualTo("committed");
      g.delete();

      admin.disableTable(name);
      admin.restoreSnapshot("restore_guarded_snap");
      admin.enableTable(name);
      cluster.getTestingUtility().waitTableAvailable(name);
      assertThat(Bytes.toString(table.get(new Get(row)).getValue(CF, q))).isEqualTo("in the snapshot");
      admin.deleteSnapshot("restore_guarded_snap");
    }
  }

  @Test
  void aBulkLoadIntoARegionWithGroupedRowsIsRefusedAndLandsAfterTheGroupIsDeleted(GStoreMiniCluster cluster)
      throws Exception {
    TableName name = TableName.valueOf("bulk_guarded");
    try (Table table = cluster.createTable(name, new byte[][] {CF}, null);
        GStoreClient client = GStoreClient.create(cluster.getConnection())) {
      KeyGroup g = client.createGroup(GroupSpec.builder().id("bulk").leader(name, Bytes.toBytes("m-1")).build());
      FileSystem fs = cluster.getTestingUtility().getTestFileSystem();
      Path dir = new Path(cluster.getTestingUtility().getDataTestDirOnTestFS("bulk"), "load");
      HFileTestUtil.createHFile(cluster.getConfiguration(), fs, new Path(new Path(dir, Bytes.toString(CF)), "hfile"),
          CF, Bytes.toBytes("q"), Bytes.toBytes("m-0"), Bytes.toBytes("m-9"), 100);
      BulkLoadHFiles loader = BulkLoadHFiles.create(cluster.getConfiguration());
      assertThatThrownBy(() -> loader.bulkLoad(name, Map.of(CF, List.of(new Path(new Path(dir,
          Bytes.toString(CF)), "hfile"))))).hasStackTraceContaining("bulk");
      assertThat(table.get(new Get(Bytes.toBytes("m-5"))).isEmpty()).as("nothing of the load landed").isTrue();
      g.delete();
      HFileTestUtil.createHFile(cluster.getConfiguration(), fs, new Path(new Path(dir, Bytes.toString(CF)), "again"),
          CF, Bytes.toBytes("q"), Bytes.toBytes("m-0"), Bytes.toBytes("m-9"), 100);
      loader.bulkLoad(name, Map.of(CF, List.of(new Path(new Path(dir, Bytes.toString(CF)), "again"))));
      assertThat(table.getScanner(CF).next(200)).hasSizeGreaterThan(50);
    }
  }

  /**
   * A bulk load takes no row lock: one admitted before a join fenced a row of its region, and still committing its
   * store files, must land before the group reads the row (or be refused), or the group serves the row without the
   * load's cells while HBase holds them. The gate holds the load just after G-Store admitted it.
   */
  @Test
  void aBulkLoadAdmittedBeforeAJoinFencedItsRowLandsBeforeTheGroupReadsTheRow(GStoreMiniCluster cluster)
      throws Exception {
    TableName name = TableName.valueOf("bulk_racing");
    byte[] row = Bytes.toBytes("m-5");
    try (Table table = cluster.createTable(name, new byte[][] {CF}, null);
        GStoreClient client = GStoreClient.create(cluster.getConnection());
        Admin admin = cluster.getConnection().getAdmin()) {
      admin.modifyTable(TableDescriptorBuilder.newBuilder(admin.getDescriptor(name))
          .setCoprocessor(CoprocessorDescriptorBuilder.newBuilder(CommitGate.class.getName())
              .setPriority(Coprocessor.PRIORITY_USER + 1).build()).build()); // after G-Store's own hook
      cluster.getTestingUtility().waitTableAvailable(name);
      FileSystem fs = cluster.getTestingUtility().getTestFileSystem();
      Path family = new Path(new Path(cluster.getTestingUtility().getDataTestDirOnTestFS("racing"), "load"),
          Bytes.toString(CF));
      try (HFile.Writer writer = HFile.getWriterFactory(cluster.getConfiguration(),
          new CacheConfig(cluster.getConfiguration())).withPath(fs, new Path(family, "hfile"))
          .withFileContext(new HFileContextBuilder().build()).create()) {
        writer.append(new KeyValue(row, CF, Bytes.toBytes("q"), System.currentTimeMillis(), Bytes.toBytes("loaded")));
      }
      BulkLoadHFiles loader = BulkLoadHFiles.create(cluster.getConfiguration());
      CommitGate.close();
      CompletableFuture<?> load = CompletableFuture.runAsync(() -> {
        try {
          loader.bulkLoad(name, Map.of(CF, List.of(new Path(family, "hfile"))));
        } catch (IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      });
      assertThat(CommitGate.reached.await(60, TimeUnit.SECONDS)).as("the load reached its commit").isTrue();
      ScheduledExecutorService opener = Executors.newSingleThreadScheduledExecutor();
      try {
        opener.schedule(CommitGate::open, 2, TimeUnit.SECONDS); // the join has fenced the row by then
        KeyGroup g = client.createGroup(GroupSpec.builder().id("racing").leader(name, row).build());
        String inGroup = g.transact(txn -> Bytes.toString(txn.get(name, new Get(row)).getValue(CF,
            Bytes.toBytes("q"))));
        boolean landed;
        try {
          load.get(60, TimeUnit.SECONDS);
          landed = true;
        } catch (ExecutionException refused) {
          landed = false;
        }
        g.delete();
        String inHBase = Bytes.toString(table.get(new Get(row)).getValue(CF, Bytes.toBytes("q")));
        assertThat(inGroup).as("the group read what HBase holds (load landed: %s)", landed).isEqualTo(inHBase);
        assertThat(inHBase != null).as("HBase holds the load's cells exactly when it landed").isEqualTo(landed);
      } finally {
        CommitGate.open();
        opener.shutdownNow();
      }
    }
  }

  /** Holds a bulk load's store-file commit while closed (a test's stand-in for a slow commit). */
  public static final class CommitGate implements RegionCoprocessor, RegionObserver {
    static volatile CountDownLatch reached = new CountDownLatch(0);
    private static volatile CountDownLatch gate = new CountDownLatch(0);

    static void close() {
      reached = new CountDownLatch(1);
      gate = new CountDownLatch(1);
    }

    static void open() {
      gate.countDown();
    }

    @Override
    public Optional<RegionObserver> getRegionObserver() {
      return Optional.of(this);
    }

    @Override
    public void preCommitStoreFile(ObserverContext<RegionCoprocessorEnvironment> ctx, byte[] family,
        List<Pair<Path, Path>> pairs) throws IOException {
      reached.countDown();
      try {
        gate.await(60, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new java.io.InterruptedIOException("interrupted at the gate");
      }
    }
  }
}
