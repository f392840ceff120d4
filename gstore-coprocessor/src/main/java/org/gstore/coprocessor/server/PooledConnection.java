package org.gstore.coprocessor.server;

import java.io.IOException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.BufferedMutatorParams;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Hbck;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.TableBuilder;

/**
 * The region server's connection, as G-Store's parts use it: every {@code Table} they open shares one pool of
 * threads that stay alive between calls. The connection a coprocessor gets ({@code SharedConnection}) gives each
 * {@code Table} opened without a pool a pool of its own, shut down when the table closes, so every batch, get and
 * scan started threads and ended them: traced at one client creating groups back to back, 300 thread starts a
 * second and both cores busy. This pool is the one HBase builds per table, shared: a thread per call in flight,
 * an idle thread taken before a new one is started, and ended after a minute idle. Closing this closes the pool
 * only: the connection belongs to the region server.
 */
final class PooledConnection implements Connection {
  private final Connection connection;
  private final ThreadPoolExecutor calls;
  /** Told of every data call a table of this connection makes ({@link CountedTables}). */
  private final Runnable called;

  PooledConnection(Connection connection, ThreadFactory threads, Runnable called) {
    this.connection = connection;
    this.called = called;
    this.calls = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS, new SynchronousQueue<>(),
        threads);
  }

  static PooledConnection of(Connection connection, ServerName server, Runnable called) {
    return new PooledConnection(connection, ServerThreads.named("hbase-calls", server), called);
  }

  /** The shared pool unless the caller brings its own; every call its tables make is counted. */
  @Override
  public TableBuilder getTableBuilder(TableName tableName, ExecutorService pool) {
    return CountedTables.counting(connection.getTableBuilder(tableName, pool != null ? pool : calls), called);
  }

  @Override
  public Configuration getConfiguration() {
    return connection.getConfiguration();
  }

  @Override
  public BufferedMutator getBufferedMutator(TableName tableName) throws IOException {
    return connection.getBufferedMutator(tableName);
  }

  @Override
  public BufferedMutator getBufferedMutator(BufferedMutatorParams params) throws IOException {
    return connection.getBufferedMutator(params);
  }

  @Override
  public RegionLocator getRegionLocator(TableName tableName) throws IOException {
    return connection.getRegionLocator(tableName);
  }

  @Override
  public void clearRegionLocationCache() {
    connection.clearRegionLocationCache();
  }

  @Override
  public Admin getAdmin() throws IOException {
    return connection.getAdmin();
  }

  @Override
  public String getClusterId() {
    return connection.getClusterId();
  }

  @Override
  public Hbck getHbck() throws IOException {
    return connection.getHbck();
  }

  @Override
  public Hbck getHbck(ServerName masterServer) throws IOException {
    return connection.getHbck(masterServer);
  }

  /** Ends the pool's threads (calls in flight are interrupted); the region server's connection stays open. */
  @Override
  public void close() {
    calls.shutdownNow();
  }

  @Override
  public boolean isClosed() {
    return calls.isShutdown() || connection.isClosed();
  }

  @Override
  public void abort(String why, Throwable e) {
    connection.abort(why, e);
  }

  @Override
  public boolean isAborted() {
    return connection.isAborted();
  }
}
