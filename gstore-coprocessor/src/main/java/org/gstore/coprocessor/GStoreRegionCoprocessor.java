package org.gstore.coprocessor;

import org.gstore.coprocessor.config.GStoreConfig;
import org.gstore.coprocessor.metrics.GStoreMetrics;
import com.google.protobuf.Service;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.CoprocessorEnvironment;
import org.apache.hadoop.hbase.HConstants.OperationStatusCode;
import org.apache.hadoop.hbase.RegionTooBusyException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Append;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.CheckAndMutateResult;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.RowMutations;
import org.apache.hadoop.hbase.coprocessor.ObserverContext;
import org.apache.hadoop.hbase.regionserver.ScanOptions;
import org.apache.hadoop.hbase.regionserver.ScanType;
import org.apache.hadoop.hbase.regionserver.Store;
import org.apache.hadoop.hbase.regionserver.compactions.CompactionLifeCycleTracker;
import org.apache.hadoop.hbase.regionserver.compactions.CompactionRequest;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessor;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.RegionObserver;
import org.apache.hadoop.hbase.regionserver.MiniBatchOperationInProgress;
import org.apache.hadoop.hbase.regionserver.OperationStatus;
import org.apache.hadoop.hbase.util.Pair;
import org.gstore.common.RowGroupedException;
import org.gstore.coprocessor.endpoint.Authorizer;
import org.gstore.coprocessor.endpoint.Endpoints;
import org.gstore.coprocessor.server.GStoreServer;
import org.gstore.coprocessor.server.GStoreServers;
import org.gstore.coprocessor.server.StateTables;
import org.gstore.coprocessor.server.WriteFence;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * G-Store in one region: install this class cluster-wide ({@code hbase.coprocessor.user.region.classes}) or on a
 * table's descriptor. It registers the region with its server's {@link GStoreServer}, serves the client endpoint
 * for groups led by the region's rows, and fences the region's grouped rows.
 *
 * <p>Fencing: every mutation of a row that is joining or yielded to a group is rejected with
 * {@link RowGroupedException}, unless it carries an {@code OwnerToken} of that very group (the group's own update
 * shipper). A token for any other group, or for a row that is free, is rejected too. All mutation paths (put,
 * delete, increment, append, check-and-mutate, mutateRow, batch) pass the same check. While a region's group state
 * is loading, writes get a retryable {@link RegionTooBusyException}. Bulk loads into a region with grouped rows
 * are refused; table-level changes that would unfence rows are refused by {@link GStoreMasterObserver}.
 *
 * <p>Major compactions of the region keep delete markers for at least {@link GStoreConfig#DELETES_RETAIN_MS}
 * (HBase's time to purge deletes): a shipper may write an older commit again after a newer commit deleted its
 * cells (it ships again what a dead server may have lost), and a delete marker that is gone no longer hides it.
 *
 * <p>System tables and G-Store's own tables are left alone when the class is installed cluster-wide.
 *
 * <p>Installed both cluster-wide and on a table's descriptor, HBase loads two instances on each of the table's
 * regions. The second one stands aside: it neither loads the region's group state nor fences, and the first serves
 * the region alone. (HBase itself still logs that the endpoint services are already registered, unless
 * {@code hbase.skip.load.duplicate.table.coprocessor} is true, as docs/operations.md recommends.)
 */
public class GStoreRegionCoprocessor implements RegionCoprocessor, RegionObserver {
  private static final Logger LOG = LoggerFactory.getLogger(GStoreRegionCoprocessor.class);
  /**
   * The instance serving each region open in this JVM, by encoded region name. An entry counts only for the very
   * region object it was made for, so one left behind by an open that failed never makes a later open stand aside.
   */
  private static final Map<String, GStoreRegionCoprocessor> SERVING = new ConcurrentHashMap<>();
  private final Endpoints endpoints = new Endpoints();
  private GStoreServer server;
  private RegionCoprocessorEnvironment env;
  private long deletesRetainMillis;

  @Override
  public void start(CoprocessorEnvironment environment) throws IOException {
    if (!(environment instanceof RegionCoprocessorEnvironment renv)) {
      return;
    }
    // every region that loads the class holds the registry, whether G-Store serves it or not (GStoreMetrics.held)
    GStoreMetrics.held(renv.getMetricRegistryForRegionServer());
    TableName table = renv.getRegionInfo().getTable();
    if (table.isSystemTable() || StateTables.NAMESPACE.equals(table.getNamespaceAsString())) {
      return;
    }
    this.env = renv;
    this.deletesRetainMillis = GStoreConfig.deletesRetainMillis(renv.getConfiguration());
    GStoreRegionCoprocessor first = SERVING.merge(renv.getRegionInfo().getEncodedName(), this,
        (old, mine) -> old.env.getRegion() == renv.getRegion() ? old : mine);
    if (first != this) {
      this.env = null;
      LOG.info("G-Store is loaded twice on region {} (cluster-wide and in its table's descriptor); the second"
          + " instance stands aside. Set hbase.skip.load.duplicate.table.coprocessor=true to have HBase skip it",
          renv.getRegionInfo().getRegionNameAsString());
      return;
    }
    this.server = GStoreServers.acquire(renv);
    endpoints.attach(renv.getRegion(), server, server.transactions().manager(), server.transactions().localRows(),
        Authorizer.of(renv.getRegion(), renv.getConfiguration()));
    server.regionOpened(renv.getRegion());
  }

  @Override
  public void stop(CoprocessorEnvironment environment) {
    if (server != null) {
      try {
        server.regionClosing(env.getRegionInfo()); // a no-op if preClose already drained it
      } catch (IOException e) {
        LOG.warn("G-Store: {}", e.getMessage()); // the region server aborts
      }
      GStoreServers.release(server);
      server = null;
      SERVING.remove(env.getRegionInfo().getEncodedName(), this);
    }
  }

  @Override
  public Optional<RegionObserver> getRegionObserver() {
    return Optional.of(this);
  }

  @Override
  public Iterable<Service> getServices() {
    return endpoints.services();
  }

  @Override
  public void preCompactScannerOpen(ObserverContext<RegionCoprocessorEnvironment> c, Store store, ScanType scanType,
      ScanOptions options, CompactionLifeCycleTracker tracker, CompactionRequest request) {
    if (server != null && options.getTimeToPurgeDeletes() < deletesRetainMillis) {
      options.setTimeToPurgeDeletes(deletesRetainMillis);
      // HBase 2.6 applies the options only if one of these three is set too: set one to what it is
      options.setKeepDeletedCells(options.getKeepDeletedCells());
    }
  }

  @Override
  public void preClose(ObserverContext<RegionCoprocessorEnvironment> c, boolean abortRequested)
      throws IOException {
    if (server != null && abortRequested) {
      server.aborting(); // its regions close without flushing: what it was shipped may be lost
    } else if (server != null) {
      server.regionClosing(env.getRegionInfo());
    }
  }

  /**
   * Fences a batch per operation where HBase honours that ({@link BatchKind}): in a batch another service sends
   * ({@code Table.batch}, {@code put(List)}, a {@code BufferedMutator}), only the writes to grouped rows fail, each
   * with a {@code DoNotRetryIOException} whose message names {@link RowGroupedException} and the group (or a
   * retryable {@code RegionTooBusyException} while the region's fence loads), and the other writes are applied.
   * Such a batch never fails by a throw, even when every write of this part of it is refused: HBase cuts a large
   * batch into mini-batches, and a throw would fail the writes of the earlier ones, already applied, and leave the
   * later ones untried. Any other batch fails as a whole with the first refusal: nothing of it is written.
   */
  @Override
  public void preBatchMutate(ObserverContext<RegionCoprocessorEnvironment> c,
      MiniBatchOperationInProgress<Mutation> batch) throws IOException {
    if (server == null) {
      return;
    }
    IOException[] refusals = new IOException[batch.size()];
    IOException first = null;
    for (int i = 0; i < batch.size(); i++) {
      refusals[i] = server.writeFence().refusal(env.getRegionInfo(), batch.getOperation(i));
      first = first == null ? refusals[i] : first;
    }
    if (first == null) {
      return;
    }
    if (!BatchKind.perOperationStatusHonoured()) {
      throw first;
    }
    for (int i = 0; i < batch.size(); i++) {
      if (refusals[i] != null) {
        batch.setOperationStatus(i, new OperationStatus(refusals[i] instanceof RegionTooBusyException
            ? OperationStatusCode.STORE_TOO_BUSY : OperationStatusCode.FAILURE, refusals[i]));
      }
    }
  }

  /** A put waits for a loading region before its row is locked (see {@link WriteFence#awaitLoaded}). */
  @Override
  public void prePut(ObserverContext<RegionCoprocessorEnvironment> c, org.apache.hadoop.hbase.client.Put put,
      org.apache.hadoop.hbase.wal.WALEdit edit) {
    awaitLoaded();
  }

  /** A delete waits for a loading region before its row is locked (see {@link WriteFence#awaitLoaded}). */
  @Override
  public void preDelete(ObserverContext<RegionCoprocessorEnvironment> c,
      org.apache.hadoop.hbase.client.Delete delete, org.apache.hadoop.hbase.wal.WALEdit edit) {
    awaitLoaded();
  }

  private void awaitLoaded() {
    if (server != null) {
      server.writeFence().awaitLoaded(env.getRegionInfo());
    }
  }

  @Override
  public CheckAndMutateResult preCheckAndMutate(ObserverContext<RegionCoprocessorEnvironment> c,
      CheckAndMutate checkAndMutate, CheckAndMutateResult result) throws IOException {
    if (checkAndMutate.getAction() instanceof RowMutations rm) {
      for (Mutation m : rm.getMutations()) {
        checkWrite(m);
      }
    } else {
      checkWrite((Mutation) checkAndMutate.getAction());
    }
    return result;
  }

  @Override
  public Result preIncrement(ObserverContext<RegionCoprocessorEnvironment> c, Increment increment)
      throws IOException {
    checkWrite(increment);
    return null;
  }

  @Override
  public Result preAppend(ObserverContext<RegionCoprocessorEnvironment> c, Append append) throws IOException {
    checkWrite(append);
    return null;
  }

  /**
   * A bulk load would write rows without passing the fence, so none is let into a region while any of its rows
   * is grouped: the whole load is refused (it would be all or nothing per region anyway), and may be retried once
   * the groups are deleted.
   */
  @Override
  public void preBulkLoadHFile(ObserverContext<RegionCoprocessorEnvironment> c,
      List<Pair<byte[], String>> familyPaths) throws IOException {
    throwIfRefused(fence -> fence.bulkLoadRefusal(env.getRegionInfo()));
  }

  /**
   * The deciding check of a bulk load, as its store files commit (after it, they are readable): a join that fenced
   * a row of the region since {@link #preBulkLoadHFile} refuses it here; one that fences later waits for its end.
   */
  @Override
  public void preCommitStoreFile(ObserverContext<RegionCoprocessorEnvironment> c, byte[] family,
      List<Pair<Path, Path>> pairs) throws IOException {
    throwIfRefused(fence -> fence.bulkLoadCommitRefusal(env.getRegionInfo()));
  }

  @Override
  public void postBulkLoadHFile(ObserverContext<RegionCoprocessorEnvironment> c,
      List<Pair<byte[], String>> stagingFamilyPaths, Map<byte[], List<Path>> finalPaths) {
    if (server != null) {
      server.writeFence().bulkLoadEnded();
    }
  }

  private void checkWrite(Mutation m) throws IOException {
    awaitLoaded();
    throwIfRefused(fence -> fence.refusal(env.getRegionInfo(), m));
  }

  /** Throws the fence's refusal, if it has one; nothing is refused where G-Store does not run. */
  private void throwIfRefused(java.util.function.Function<WriteFence, IOException> check) throws IOException {
    IOException refusal = server == null ? null : check.apply(server.writeFence());
    if (refusal != null) {
      throw refusal;
    }
  }
}
