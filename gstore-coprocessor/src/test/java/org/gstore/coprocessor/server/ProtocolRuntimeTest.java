package org.gstore.coprocessor.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InterruptedIOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.hbase.metrics.MetricRegistries;
import org.apache.hadoop.hbase.metrics.MetricRegistryInfo;
import org.gstore.common.protocol.GroupId;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.NodeId;
import org.gstore.common.protocol.ProtocolConfig;
import org.gstore.coprocessor.metrics.GStoreMetrics;
import org.gstore.coprocessor.transport.HBaseKeyLocator;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The protocol thread before the engine exists. The engine waits for the state tables, which may be out of reach for
 * minutes (their region in transition while the master restarts); a region closing meanwhile must still drain at
 * once, since nothing was decided about it, or its close times out and the region server aborts.
 */
@Timeout(30)
class ProtocolRuntimeTest {
  private final CountDownLatch tablesReachable = new CountDownLatch(1);
  private final AtomicInteger startupAttempts = new AtomicInteger();
  private final List<Thread> startThreads = new CopyOnWriteArrayList<>();
  private final StepWriter writer = new StepWriter("test", changes -> { }, () -> { }, (why, e) -> { },
      new FenceUpdates(new HostedRegions(), new SkewSafeRelease(new HostedRegions(), System::currentTimeMillis, 1_000)),
      new GStoreMetrics(MetricRegistries.global().create(
          new MetricRegistryInfo("ProtocolRuntimeTest", "test", "test", "test", false))),
      datagram -> { }, reply -> { }, (requestId, e) -> { });
  private final HBaseKeyLocator locator = new HBaseKeyLocator(null, Executors.defaultThreadFactory());
  private final ProtocolRuntime runtime = new ProtocolRuntime(new NodeId("n1"), ProtocolConfig.DEFAULTS, 1_000,
      () -> {
        startupAttempts.incrementAndGet();
        try {
          tablesReachable.await(); // as an HBase client call retrying for minutes
        } catch (InterruptedException e) {
          throw new InterruptedIOException("stopping");
        }
        return 0L;
      }, new HostedRegions(), locator, new GStoreMetrics(MetricRegistries.global().create(
          new MetricRegistryInfo("ProtocolRuntimeTest", "test", "test", "test", false))), writer, new ClientWaiters(),
      Executors.defaultThreadFactory(), r -> {
        Thread t = new Thread(r, "engine-start");
        startThreads.add(t);
        return t;
      });

  @AfterEach
  void close() {
    runtime.close();
    writer.close();
    locator.close();
  }

  @Test
  void aRegionClosingBeforeTheEngineExistsDrainsAtOnceAndInputsWaitForTheEngine() throws Exception {
    runtime.start();
    Awaitility.await().until(() -> startupAttempts.get() == 1); // the engine waits for the tables

    AtomicBoolean removed = new AtomicBoolean();
    runtime.unload(k -> true, () -> removed.set(true)).get(5, TimeUnit.SECONDS);
    assertThat(removed).as("the region stops being hosted before the drain completes").isTrue();

    GroupId id = new GroupId("g", Key.of("t", "L"));
    var record = runtime.group(id); // an input before the engine exists waits for it
    assertThat(record).isNotDone();
    tablesReachable.countDown();
    assertThat(record.get(5, TimeUnit.SECONDS)).isEmpty();
    assertThat(runtime.engine().get(5, TimeUnit.SECONDS).groupCount()).isZero();
    assertThat(startupAttempts).hasValue(1);
  }

  @Test
  void closingWhileTheStartWaitsForTheTablesEndsTheStartThreadAndNoEngineIsMade() throws Exception {
    runtime.start();
    Awaitility.await().until(() -> startupAttempts.get() == 1);

    runtime.close(); // the region server stops while its master is away
    assertThat(startThreads).hasSize(1);
    startThreads.get(0).join(5_000);
    assertThat(startThreads.get(0).isAlive()).as("the start thread ends with G-Store").isFalse();
    assertThat(runtime.engine()).isNotDone();
    assertThat(startupAttempts).hasValue(1);
  }
}
