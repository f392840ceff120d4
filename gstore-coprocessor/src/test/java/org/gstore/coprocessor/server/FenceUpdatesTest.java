package org.gstore.coprocessor.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.RegionInfoBuilder;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.Region;
import org.apache.hadoop.hbase.util.Bytes;
import org.awaitility.Awaitility;
import org.gstore.common.protocol.GroupId;
import org.gstore.common.protocol.GroupRef;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.NodeId;
import org.gstore.common.protocol.OwnerRecord;
import org.gstore.common.protocol.StateChange;
import org.gstore.common.protocol.Uid;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Fences are set under the row's exclusive lock, on a real local region. */
@Timeout(30)
class FenceUpdatesTest {
  private static final TableName TABLE = TableName.valueOf("fence_updates");
  private static HRegion region;
  private final HostedRegions hosted = new HostedRegions();
  private final FenceUpdates fences = new FenceUpdates(hosted, new SkewSafeRelease(hosted,
      System::currentTimeMillis, 1_000));

  @BeforeAll
  static void openRegion() throws IOException {
    Configuration conf = HBaseConfiguration.create();
    conf.setBoolean("hbase.hregion.memstore.mslab.enabled", false);
    conf.setInt("hbase.rowlock.wait.duration", 100); // a lock wait that times out within the test
    Path root = new Path(Files.createTempDirectory("fence-updates").toUri());
    TableDescriptor table = TableDescriptorBuilder.newBuilder(TABLE)
        .setColumnFamily(ColumnFamilyDescriptorBuilder.of("f")).build();
    RegionInfo info = RegionInfoBuilder.newBuilder(TABLE).build();
    region = HRegion.createHRegion(info, root, conf, table, null);
  }

  @AfterAll
  static void closeRegion() throws IOException {
    if (region != null) {
      region.close();
    }
  }

  /**
   * Issue 53, hole 2: a plain write stalled in its WAL sync holds the row's shared lock past
   * {@code hbase.rowlock.wait.duration}; the fence was set without the lock, so the write completed after the join's
   * answer left, unseen by the group's cache. The fence now waits for the lock.
   */
  @Test
  void aFenceWaitsForAPlainWriteThatHoldsTheRowLockPastTheLockWait() throws Exception {
    String name = region.getRegionInfo().getEncodedName();
    hosted.phases().opened(name);
    hosted.phases().fenced(name);
    assertThat(hosted.markReady(region)).isTrue();
    Key key = Key.of(TABLE.getNameAsString(), "row-1");
    GroupRef group = new GroupRef(new GroupId("g", Key.of(TABLE.getNameAsString(), "leader")),
        new Uid(new NodeId("n1"), 1));

    java.util.concurrent.ExecutorService writer = java.util.concurrent.Executors.newSingleThreadExecutor();
    CompletableFuture<Region.RowLock> held = CompletableFuture.supplyAsync(() -> {
      try {
        return region.getRowLock(Bytes.toBytes("row-1"), true); // a plain write's shared lock
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }, writer);
    Region.RowLock writeInProgress = held.get(10, TimeUnit.SECONDS);
    CompletableFuture<Void> fencing = CompletableFuture.runAsync(() -> fences.apply(List.of(
        new StateChange.PutOwner(new OwnerRecord(key, group, new Uid(new NodeId("n2"), 7),
            OwnerRecord.State.JOINING)))));
    Awaitility.await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5))
        .until(() -> hosted.ownerOf(key) == null); // five lock waits and more: still not fenced
    CompletableFuture.runAsync(writeInProgress::release, writer).get(10, TimeUnit.SECONDS); // its own thread
    writer.shutdown();
    fencing.get(10, TimeUnit.SECONDS);
    assertThat(hosted.ownerOf(key)).isEqualTo(group);
  }
}
