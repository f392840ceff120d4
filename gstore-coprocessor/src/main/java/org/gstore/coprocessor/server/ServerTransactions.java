package org.gstore.coprocessor.server;

import java.util.concurrent.ThreadFactory;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.gstore.common.protocol.GroupId;
import org.gstore.common.protocol.Key;
import org.gstore.coprocessor.config.GStoreConfig;
import org.gstore.coprocessor.metrics.GStoreMetrics;
import org.gstore.coprocessor.txn.CacheLoader;
import org.gstore.coprocessor.txn.CommitValidator;
import org.gstore.coprocessor.txn.GroupCaches;
import org.gstore.coprocessor.txn.GroupHandover;
import org.gstore.coprocessor.txn.LocalRows;
import org.gstore.coprocessor.txn.PersistedMarks;
import org.gstore.coprocessor.txn.TransactionManager;
import org.gstore.coprocessor.wal.SharedWal;
import org.gstore.coprocessor.wal.UpdateShipper;
import org.gstore.recovery.hbase.OutcomeTable;

/**
 * The transaction side of one region server: the caches of the groups it leads and their loader, the reads of
 * the rows it hosts ({@link LocalRows}, for its own loads and its peers' {@code LoadRows}), the validation of
 * commits against the member tables, the {@link TransactionManager} that commits through the shared WAL, and the
 * {@link GroupHandover} that settles a group's caches and shipments when it leaves here. {@link GStoreServer}
 * wires it to the Key Grouping side, which it reads only through {@code groups} and {@code leadsHere}.
 */
public final class ServerTransactions implements AutoCloseable {
  private final LocalRows localRows;
  private final TableGuard tableGuard;
  private final GroupCaches caches;
  private final TransactionManager manager;
  private final GroupHandover handover;
  private final PersistedMarks persistedMarks;

  ServerTransactions(Configuration conf, GStoreConfig config, PooledConnection hbase, HostedRegions hosted,
      SharedWal wal, UpdateShipper shipper, GStoreMetrics metrics, GroupCaches.Lookup groups,
      Predicate<Key> leadsHere, LongSupplier clock, ThreadFactory cacheReads,
      Function<TableName, TableDescriptor> servedHere, ThreadFactory tableRefresh) {
    this.localRows = new LocalRows(hosted::regionOf);
    this.tableGuard = new TableGuard(hbase, conf, servedHere, tableRefresh);
    this.caches = new GroupCaches(new CacheLoader(hbase, localRows, config.maxFutureMillis(),
        config.snapshotRetentionMillis(), metrics, cacheReads), groups, leadsHere);
    CommitValidator validator = new CommitValidator(tableGuard,
        conf.getLong(HRegion.HBASE_MAX_CELL_SIZE_KEY, HRegion.DEFAULT_MAX_CELL_SIZE), config.maxCommitBytes());
    this.manager = new TransactionManager(metrics, wal, shipper, caches, validator, new OutcomeTable(hbase),
        config.endpointWaitMillis(), clock, config.testPlant());
    this.persistedMarks = new PersistedMarks(caches, wal, shipper);
    this.handover = new GroupHandover(caches, wal, shipper, metrics, config.endpointWaitMillis(),
        config.maxFutureMillis(), clock, config.testPlant());
  }

  /** Runs the transactions of the groups this server leads. */
  public TransactionManager manager() {
    return manager;
  }

  /** Loads a new group's cache in the background, so its first transaction does not wait for it. */
  void preload(GroupId id) {
    caches.preload(id);
  }

  /** Reads the rows this server hosts, for a cache load here or a peer's. */
  public LocalRows localRows() {
    return localRows;
  }

  /** Settles a group's cache and shipments when it moves away or is deleted. */
  GroupHandover handover() {
    return handover;
  }

  /** Logs persisted marks of the groups led here that HBase has caught up with, at each persistence heartbeat. */
  PersistedMarks persistedMarks() {
    return persistedMarks;
  }

  /** Checks a table G-Store is asked to serve (see {@link TableGuard}). */
  TableGuard tableGuard() {
    return tableGuard;
  }

  @Override
  public void close() {
    manager.close();
    tableGuard.close();
  }
}
