package org.gstore.coprocessor.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.gstore.coprocessor.Fakes.fake;

import com.google.protobuf.ServiceException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.RegionInfoBuilder;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.exceptions.UnknownProtocolException;
import org.apache.hadoop.hbase.ipc.CoprocessorRpcChannel;
import org.apache.hadoop.hbase.metrics.Histogram;
import org.apache.hadoop.hbase.metrics.MetricRegistries;
import org.apache.hadoop.hbase.metrics.MetricRegistry;
import org.apache.hadoop.hbase.metrics.MetricRegistryInfo;
import org.gstore.common.protocol.CreateMode;
import org.gstore.common.protocol.GroupId;
import org.gstore.common.protocol.GroupPhase;
import org.gstore.common.protocol.GroupRecord;
import org.gstore.common.protocol.GroupRef;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.MemberState;
import org.gstore.common.protocol.NodeId;
import org.gstore.common.protocol.Uid;
import org.awaitility.Awaitility;
import org.gstore.coprocessor.metrics.GStoreMetrics;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * How cache loads share the server: over a fake HBase client in which every row is a region of its own, the table
 * {@code stuck} never answers a scan (a region that is unavailable), and no server can read rows for a loading
 * leader (a G-Store release without {@code LoadRows}): every row is read through HBase's client.
 */
@Timeout(30)
class CacheLoaderTest {
  private static final MetricRegistry REGISTRY =
      MetricRegistries.global().create(new MetricRegistryInfo("loader-test", "t", "t", "t", false));
  private static final GStoreMetrics METRICS = new GStoreMetrics(REGISTRY);

  /** How every server's {@code LoadRows} fails: by default, as a G-Store release without it. */
  private volatile Exception serverFailure = new UnknownProtocolException("no LoadRows here");
  private final CountDownLatch regionComesBack = new CountDownLatch(1);
  private final AtomicInteger scansWaiting = new AtomicInteger();
  private final CacheLoader loader = new CacheLoader(fakeHBase(), new LocalRows(k -> null), 60_000, 60_000, METRICS,
      Executors.defaultThreadFactory());

  @AfterEach
  void tearDown() {
    regionComesBack.countDown();
    loader.close();
  }

  @Test
  void aGroupWhoseRegionsDoNotAnswerDelaysOnlyItself() throws Exception {
    long timed = loadsTimed();
    CompletableFuture<GroupCache> stuck = loadInBackground(group("game-1", "stuck", 40));
    waitUntilScansWaiting(8);

    GroupCache other = loader.load(group("game-2", "quick", 40), 1);

    assertThat(other.isMember(Key.of("quick", "row-39"))).isTrue();
    assertThat(loadsTimed() - timed).as("loads timed (groupLoadLatencyMicros)").isEqualTo(1);
    assertThat(stuck).as("still waiting for its regions").isNotDone();
    assertThat(scansWaiting.get()).as("reads one load keeps in flight").isEqualTo(8);
  }

  @Test
  void rowsNoServerReadAreReadThroughHBasesClient() throws Exception {
    long before = throughClient();

    GroupCache cache = loader.load(group("game-3", "quick", 5), 1);

    assertThat(cache.isMember(Key.of("quick", "row-4"))).isTrue();
    assertThat(throughClient() - before).isEqualTo(5);
  }

  @Test
  void aServerThatTimesOutLeavesItsRowsToHBasesClient() throws Exception {
    serverFailure = new java.net.SocketTimeoutException("callTimeout=60000"); // an InterruptedIOException too
    long before = throughClient();

    GroupCache cache = loader.load(group("game-4", "quick", 5), 1);

    assertThat(cache.isMember(Key.of("quick", "row-4"))).isTrue();
    assertThat(throughClient() - before).isEqualTo(5);
  }

  private static long throughClient() {
    return ((org.apache.hadoop.hbase.metrics.Counter) REGISTRY.get("groupLoadRowsThroughClient").orElseThrow())
        .getCount();
  }

  @Test
  void closingTheLoaderEndsALoadInProgressWithAnError() throws Exception {
    CompletableFuture<GroupCache> stuck = loadInBackground(group("game-1", "stuck", 40));
    waitUntilScansWaiting(8);

    loader.close();

    assertThatThrownBy(() -> stuck.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(java.io.IOException.class);
  }

  private CompletableFuture<GroupCache> loadInBackground(GroupRecord record) {
    CompletableFuture<GroupCache> done = new CompletableFuture<>();
    Thread t = new Thread(() -> {
      try {
        done.complete(loader.load(record, 1));
      } catch (Throwable e) {
        done.completeExceptionally(e);
      }
    });
    t.setDaemon(true);
    t.start();
    return done;
  }

  private static long loadsTimed() {
    return ((Histogram) REGISTRY.get("groupLoadLatencyMicros").orElseThrow()).getCount();
  }

  private void waitUntilScansWaiting(int n) {
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> scansWaiting.get() >= n);
  }

  private static GroupRecord group(String name, String table, int members) {
    TreeMap<Key, MemberState> joined = new TreeMap<>();
    for (int i = 0; i < members; i++) {
      joined.put(Key.of(table, "row-" + i), MemberState.joined(new Uid(new NodeId("n1"), 1)));
    }
    GroupId id = new GroupId(name, joined.firstKey());
    return new GroupRecord(new GroupRef(id, new Uid(new NodeId("n1"), 1)), CreateMode.ATOMIC, GroupPhase.ACTIVE,
        "req-" + name, joined, null, 0);
  }

  /** Every row its own region; scans of {@code stuck} wait until the test ends, everything else answers empty. */
  private Connection fakeHBase() {
    return fake(Connection.class, (method, args) -> switch (method) {
      case "getRegionLocator" -> fake(RegionLocator.class, (m, a) -> m.equals("getRegionLocation")
          ? new HRegionLocation(RegionInfoBuilder.newBuilder((TableName) args[0]).setStartKey((byte[]) a[0])
              .build(), ServerName.valueOf("rs1", 16020, 1))
          : null);
      case "getTable" -> table((TableName) args[0]);
      default -> null;
    });
  }

  private Table table(TableName name) {
    return fake(Table.class, (method, args) -> switch (method) {
      case "getScanner" -> {
        if (name.getNameAsString().equals("stuck")) {
          scansWaiting.incrementAndGet();
          try {
            regionComesBack.await();
          } catch (InterruptedException e) {
            throw new InterruptedIOException("scan interrupted");
          } finally {
            scansWaiting.decrementAndGet();
          }
        }
        yield fake(ResultScanner.class, (m, a) -> null);
      }
      case "coprocessorService" -> fake(CoprocessorRpcChannel.class, (m, a) -> {
        throw new ServiceException(serverFailure);
      });
      case "get" -> {
        Result[] results = new Result[((List<?>) args[0]).size()];
        java.util.Arrays.fill(results, Result.EMPTY_RESULT);
        yield results;
      }
      default -> null;
    });
  }
}
