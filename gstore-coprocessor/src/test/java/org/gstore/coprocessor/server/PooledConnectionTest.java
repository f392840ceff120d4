package org.gstore.coprocessor.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.gstore.coprocessor.Fakes.fake;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class PooledConnectionTest {
  private static final TableName GROUPS = TableName.valueOf("gstore:groups");

  /** The pool each table was built with, as the region server's connection saw it. */
  private final List<ExecutorService> pools = new ArrayList<>();
  private final AtomicBoolean serverConnectionClosed = new AtomicBoolean();
  private final AtomicInteger threadsStarted = new AtomicInteger();
  private final AtomicInteger calls = new AtomicInteger();
  private final PooledConnection connection = new PooledConnection(regionServerConnection(), r -> {
    threadsStarted.incrementAndGet();
    return new Thread(r);
  }, calls::incrementAndGet);

  @AfterEach
  void tearDown() {
    connection.close();
  }

  @Test
  void everyTableOpenedWithoutAPoolSharesOneWhoseThreadsOutliveACall() throws Exception {
    try (Table first = connection.getTable(GROUPS); Table second = connection.getTable(GROUPS)) {
      assertThat(pools).hasSize(2);
      assertThat(pools.get(0)).as("a pool, not HBase's pool per table").isNotNull().isSameAs(pools.get(1));
    }
    ExecutorService pool = pools.get(0);
    for (int call = 0; call < 20; call++) {
      pool.submit(() -> { }).get(10, TimeUnit.SECONDS);
    }
    // a call may start a thread when it comes just before the last one's thread is idle again, rarely
    assertThat(threadsStarted).as("threads started for 20 calls one after another").hasValueLessThan(10);
  }

  @Test
  void aCallersOwnPoolIsKept() throws Exception {
    ExecutorService own = Executors.newSingleThreadExecutor();
    try (Table t = connection.getTable(GROUPS, own)) {
      assertThat(pools).containsExactly(own);
    } finally {
      own.shutdownNow();
    }
  }

  @Test
  void closingEndsThePoolAndLeavesTheRegionServersConnectionOpen() throws Exception {
    try (Table t = connection.getTable(GROUPS)) {
      assertThat(t).isNotNull();
    }

    connection.close();

    assertThat(pools.get(0).isShutdown()).isTrue();
    assertThat(connection.isClosed()).isTrue();
    assertThat(serverConnectionClosed).as("the region server's connection").isFalse();
  }

  @Test
  void everyDataCallOfItsTablesIsCountedAndItsFailureReachesTheCallerAsItself() throws Exception {
    try (Table t = connection.getTable(GROUPS)) {
      t.get(new Get(Bytes.toBytes("a")));
      t.put(new Put(Bytes.toBytes("a")).addColumn(Bytes.toBytes("f"), Bytes.toBytes("q"), Bytes.toBytes(1)));
      t.batch(List.of(), new Object[0]);
      assertThat(t.getName()).isNull(); // the fake's answer: asking costs no call
      assertThat(calls).as("a get, a put and a batch").hasValue(3);
      assertThatThrownBy(() -> t.delete(new Delete(Bytes.toBytes("a"))))
          .isInstanceOf(java.io.IOException.class).hasMessage("region busy");
    }
    assertThat(calls).as("the failed delete counts; close does not").hasValue(4);
  }

  private Connection regionServerConnection() {
    return fake(Connection.class, (method, args) -> switch (method) {
      case "isClosed" -> serverConnectionClosed.get();
      case "close" -> {
        serverConnectionClosed.set(true);
        yield null;
      }
      case "getTableBuilder" -> {
        pools.add((ExecutorService) args[1]);
        yield fake(TableBuilder.class, (m, a) -> m.equals("build") ? fake(Table.class, (tm, ta) -> {
          if (tm.equals("delete")) {
            throw new java.io.IOException("region busy");
          }
          return null;
        }) : null);
      }
      default -> null;
    });
  }
}
