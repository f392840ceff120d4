package org.gstore.coprocessor;

import java.io.IOException;
import java.util.Optional;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.TableNotFoundException;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.SnapshotDescription;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.coprocessor.CoprocessorHost;
import org.apache.hadoop.hbase.coprocessor.MasterCoprocessor;
import org.apache.hadoop.hbase.coprocessor.MasterCoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.MasterObserver;
import org.apache.hadoop.hbase.coprocessor.ObserverContext;
import org.gstore.common.wire.RecordCodec;
import org.gstore.common.wire.StateRows;
import org.gstore.coprocessor.server.StateTables;
import org.gstore.coprocessor.server.TableGuard;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps schema changes from silently unfencing grouped rows: while any row of a table is joining or yielded to a
 * group, the master refuses to delete, truncate or restore a snapshot over the table, to drop one of its column
 * families, and to remove G-Store from its descriptor; and while any row of any table is, it refuses the same for
 * G-Store's own tables (namespace {@code gstore}). Install it with {@code hbase.coprocessor.master.classes}.
 * Such changes would drop the rows (and with them commits the groups still hold), or stop fencing them while
 * their leaders still own them. Delete the groups first; the error names one of them.
 *
 * <p>It also creates G-Store's namespace and state tables as soon as the master is active, so they exist before
 * the first user table opens. It does so on a thread of its own that retries until it succeeds: the master must not
 * wait on it, and a region server that opens a G-Store region first creates them itself anyway.
 */
public class GStoreMasterObserver implements MasterCoprocessor, MasterObserver {
  private static final Logger LOG = LoggerFactory.getLogger(GStoreMasterObserver.class);
  private MasterCoprocessorEnvironment env;
  private volatile Thread stateTablesCreator;

  @Override
  public void start(org.apache.hadoop.hbase.CoprocessorEnvironment environment) {
    if (environment instanceof MasterCoprocessorEnvironment master) {
      this.env = master;
    }
  }

  @Override
  public void postStartMaster(ObserverContext<MasterCoprocessorEnvironment> ctx) {
    Thread creator = new Thread(this::createStateTables, "gstore-state-tables");
    creator.setDaemon(true);
    stateTablesCreator = creator;
    creator.start();
  }

  @Override
  public void stop(org.apache.hadoop.hbase.CoprocessorEnvironment environment) {
    Thread creator = stateTablesCreator;
    if (creator != null) {
      creator.interrupt();
    }
  }

  private void createStateTables() {
    for (long backoffMs = 500; ; backoffMs = Math.min(backoffMs * 2, 10_000)) {
      try {
        StateTables.ensureExist(env.getConnection());
        LOG.info("G-Store's namespace '{}' and state tables exist", StateTables.NAMESPACE);
        return;
      } catch (IOException | RuntimeException e) {
        if (Thread.currentThread().isInterrupted()) {
          return;
        }
        LOG.warn("could not create G-Store's state tables yet ({}); retrying in {} ms", e.toString(), backoffMs);
      }
      try {
        Thread.sleep(backoffMs);
      } catch (InterruptedException e) {
        return; // the master is stopping
      }
    }
  }

  @Override
  public Optional<MasterObserver> getMasterObserver() {
    return Optional.of(this);
  }

  @Override
  public void preDeleteTable(ObserverContext<MasterCoprocessorEnvironment> ctx, TableName table)
      throws IOException {
    refuseWhileGrouped(table, "delete table " + table);
  }

  @Override
  public void preTruncateTable(ObserverContext<MasterCoprocessorEnvironment> ctx, TableName table)
      throws IOException {
    refuseWhileGrouped(table, "truncate table " + table);
  }

  /**
   * Restoring a snapshot would put back old values under rows the groups' leaders own, behind their caches, and
   * drop commits not in the snapshot.
   */
  @Override
  public void preRestoreSnapshot(ObserverContext<MasterCoprocessorEnvironment> ctx, SnapshotDescription snapshot,
      TableDescriptor descriptor) throws IOException {
    refuseWhileGrouped(descriptor.getTableName(),
        "restore snapshot " + snapshot.getName() + " over table " + descriptor.getTableName());
  }

  @Override
  public TableDescriptor preModifyTable(ObserverContext<MasterCoprocessorEnvironment> ctx, TableName table,
      TableDescriptor current, TableDescriptor next) throws IOException {
    for (ColumnFamilyDescriptor family : current.getColumnFamilies()) {
      if (!next.hasColumnFamily(family.getName())) {
        refuseWhileGrouped(table, "drop column family " + family.getNameAsString() + " of " + table);
      }
    }
    String coprocessor = GStoreRegionCoprocessor.class.getName();
    boolean clusterWide = TableGuard.lists(env.getConfiguration(), CoprocessorHost.USER_REGION_COPROCESSOR_CONF_KEY)
        || TableGuard.lists(env.getConfiguration(), CoprocessorHost.REGION_COPROCESSOR_CONF_KEY);
    if (!clusterWide && current.hasCoprocessor(coprocessor) && !next.hasCoprocessor(coprocessor)) {
      refuseWhileGrouped(table, "remove G-Store from table " + table);
    }
    return next;
  }

  private void refuseWhileGrouped(TableName table, String what) throws IOException {
    if (table.isSystemTable() || env == null) {
      return;
    }
    String name = table.getNameAsString();
    // G-Store's own tables hold every group's state, fences and outcomes: guarded while any row is grouped
    boolean stateTable = StateTables.NAMESPACE.equals(table.getNamespaceAsString());
    Scan scan = (stateTable ? new Scan() : new Scan().withStartRow(StateRows.rangeStart(name, new byte[0]))
        .withStopRow(StateRows.rangeStop(name, new byte[0]))).setLimit(1).addColumn(StateTables.FAMILY,
            StateTables.RECORD);
    try (Table owners = env.getConnection().getTable(StateTables.OWNERS); ResultScanner rs = owners.getScanner(scan)) {
      Result first = rs.next();
      if (first != null) {
        var owner = RecordCodec.decodeOwner(first.getValue(StateTables.FAMILY, StateTables.RECORD));
        throw new DoNotRetryIOException("cannot " + what + ": " + (stateTable ? "G-Store's groups hold rows"
            : "rows of it belong to G-Store groups") + " (row "
            + owner.key() + " is in group " + owner.group().id() + "); delete the groups first");
      }
    } catch (TableNotFoundException noState) {
      // G-Store never ran on this cluster: no row is grouped
    }
  }
}
