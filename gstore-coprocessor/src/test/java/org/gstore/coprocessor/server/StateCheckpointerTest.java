package org.gstore.coprocessor.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.hbase.metrics.MetricRegistries;
import org.apache.hadoop.hbase.metrics.MetricRegistryInfo;
import org.awaitility.Awaitility;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.StateChange;
import org.gstore.common.protocol.log.CheckpointQueue;
import org.gstore.common.protocol.log.ProtocolRecord;
import org.gstore.common.protocol.log.VersionClock;
import org.gstore.coprocessor.metrics.GStoreMetrics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The checkpointer against tables kept in memory: what a closing region and a stopping server wait for. */
@Timeout(30)
class StateCheckpointerTest {
  private static final GStoreMetrics METRICS = new GStoreMetrics(MetricRegistries.global().create(
      new MetricRegistryInfo("StateCheckpointerTest", "test", "test", "test", false)));

  private final CheckpointQueue queue = new CheckpointQueue(0);
  private final VersionClock clock = new VersionClock();
  /** The newest version written per row, as the state tables keep it. */
  private final Map<Object, Long> tables = new ConcurrentHashMap<>();

  private StateCheckpointer checkpointer(StateCheckpointer.Tables writes) {
    return new StateCheckpointer("test", queue, writes, upTo -> { }, 0, METRICS);
  }

  private void log(String row) {
    ProtocolRecord r = queue.record(clock.stamp(List.of(new StateChange.RemoveOwner(Key.of("t", row))), 1));
    queue.append(r);
  }

  /**
   * A flush waits for the records appended before it, not for the queue to be empty: on a busy server records
   * keep coming, and a closing region that waited for an empty queue timed out and aborted the server.
   */
  @Test
  void aFlushCompletesWhileRecordsKeepComing() throws Exception {
    AtomicBoolean busy = new AtomicBoolean(true);
    StateCheckpointer checkpointer = checkpointer(changes -> {
      changes.forEach(c -> tables.merge(c.target(), c.version(), Math::max));
      if (busy.get()) {
        log("more-" + System.nanoTime()); // every checkpoint finds a new record waiting
      }
    });
    log("first");
    long target = queue.lastAppended();
    checkpointer.appended();

    checkpointer.flush().get(10, TimeUnit.SECONDS);

    assertThat(queue.marker()).isGreaterThanOrEqualTo(target);
    assertThat(tables).containsKey(Key.of("t", "first"));
    busy.set(false);
    checkpointer.close();
  }

  @Test
  void aFlushOfNothingCompletesAtOnce() throws Exception {
    StateCheckpointer checkpointer = checkpointer(changes -> {
      throw new AssertionError("nothing to write");
    });
    checkpointer.flush().get(1, TimeUnit.SECONDS);
    checkpointer.close();
  }

  @Test
  void aFlushStillWaitingFailsWhenTheCheckpointerCloses() throws Exception {
    AtomicInteger attempts = new AtomicInteger();
    StateCheckpointer checkpointer = checkpointer(changes -> {
      attempts.incrementAndGet();
      throw new java.io.IOException("the state tables are down");
    });
    log("stuck");
    var flush = checkpointer.flush();
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> attempts.get() > 0); // retrying its write
    checkpointer.close();

    assertThatThrownBy(() -> flush.get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
        .hasMessageContaining("closed");
    assertThat(queue.pending()).as("left for a recovery").isEqualTo(1);
  }

  @Test
  void aWriteThatFailsIsRetriedAndTheMarkerMovesOnlyOnceWritten() throws Exception {
    AtomicBoolean down = new AtomicBoolean(true);
    StateCheckpointer checkpointer = checkpointer(changes -> {
      if (down.getAndSet(false)) {
        throw new java.io.IOException("a region of gstore:owners is moving");
      }
      changes.forEach(c -> tables.merge(c.target(), c.version(), Math::max));
    });
    log("retried");
    checkpointer.appended();

    checkpointer.flush().get(10, TimeUnit.SECONDS);

    assertThat(tables).containsKey(Key.of("t", "retried"));
    assertThat(queue.pending()).isZero();
    checkpointer.close();
  }
}
