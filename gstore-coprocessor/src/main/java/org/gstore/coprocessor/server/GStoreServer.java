package org.gstore.coprocessor.server;

import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.metrics.MetricRegistry;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.regionserver.Region;
import org.apache.hadoop.hbase.util.EnvironmentEdgeManager;
import org.gstore.common.GStoreVersion;
import org.gstore.common.protocol.ClientRequest;
import org.gstore.common.protocol.GroupId;
import org.gstore.common.protocol.GroupRecord;
import org.gstore.common.protocol.GroupRef;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.NodeId;
import org.gstore.common.protocol.Reply;
import org.gstore.common.protocol.log.VersionClock;
import org.gstore.common.wire.OwnerToken;
import org.gstore.coprocessor.config.GStoreConfig;
import org.gstore.coprocessor.metrics.GStoreMetrics;
import org.gstore.coprocessor.transport.HBaseKeyLocator;
import org.gstore.coprocessor.txn.GroupCache;
import org.gstore.coprocessor.transport.PeerRegistry;
import org.gstore.coprocessor.transport.UdpTransport;
import org.gstore.coprocessor.wal.SharedWal;
import org.gstore.coprocessor.wal.UpdateShipper;
import org.gstore.coprocessor.wal.WalMetrics;
import org.gstore.recovery.LogId;
import org.gstore.recovery.PersistenceHeartbeat;
import org.gstore.recovery.ThresholdAlerts;
import org.gstore.recovery.hbase.CommitApplier;
import org.gstore.recovery.hbase.DepartureFencing;
import org.gstore.recovery.hbase.RecoveryStatusReader;
import org.gstore.recovery.hbase.RecoveryZnodes;
import org.gstore.recovery.hbase.WalRecovery;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * G-Store on one region server: the wiring of its parts, their start and their stop, and the face the region
 * coprocessor and the endpoints see. One per region server ({@link GStoreServers}), shared by its G-Store regions.
 *
 * <p>The parts: the {@link ProtocolRuntime} runs the Key Grouping engine, whose steps the {@link StepWriter} makes
 * durable in the {@link StateTables} before their datagrams leave through the {@link DatagramOutbox} and answers
 * reach the {@link ClientWaiters}; {@link RegionLifecycle} opens and closes regions (fence, recovery, serving);
 * {@link GroupDeletes} holds a deleted group's releases until its commits are in HBase; the
 * {@link ServerTransactions} commit through the {@link SharedWal} and ship through the {@link UpdateShipper};
 * the {@link PersistenceHeartbeat} claims what this server persisted. {@link #close()} stops them in reverse order.
 */
public final class GStoreServer implements GroupService, Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(GStoreServer.class);

  private final ServerName serverName;
  private final NodeId self;
  private final GStoreConfig config;
  private final ClusterSecrets secrets;
  private final HostServer host;
  private final WriteFence writeFence;
  private final PooledConnection hbase;
  private final StateTables tables;
  private final HostedRegions hosted = new HostedRegions();
  private final PeerRegistry peers;
  private final HBaseKeyLocator locator;
  private final UdpTransport transport;
  private final SharedWal wal;
  private final UpdateShipper shipper;
  private final ServerTransactions transactions;
  private final InstanceLog instanceLog;
  private final PersistenceHeartbeat heartbeat;
  private final ServerBeats beats;
  private final TestFaults faults; // test clusters only: datagrams dropped, G-Store's clock moved
  private final ThresholdAlerts alerts;
  private final ClientWaiters waiters = new ClientWaiters();
  private final StepWriter writer;
  private final ProtocolRuntime runtime;
  private final RegionLifecycle regions;
  private final GroupDeletes deletes;
  private final GroupLeases leases;
  private final Path walRoot;
  private final FileSystem walFs;
  private final LoggedStateStore stateLog; // protocol state logged before the tables (protocol.log=wal), or null
  private final RecoveryZnodes recoveryZnodes;
  private final ServerGauges gauges;
  private volatile boolean crashed;
  private final AtomicBoolean stoppedFatally = new AtomicBoolean(); // fatal() ran: the server is aborted once
  private volatile boolean aborting;

  /** Builds G-Store on the environment's region server and starts it (see {@link GStoreServers#acquire}). */
  static GStoreServer start(RegionCoprocessorEnvironment env) throws IOException {
    GStoreServer server = new GStoreServer(env);
    try {
      server.startServing();
      return server;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      server.close();
      throw new InterruptedIOException("interrupted starting G-Store");
    } catch (IOException | RuntimeException e) {
      server.close();
      throw e;
    }
  }

  /** Wires the parts; starts no thread that acts and binds no socket. */
  private GStoreServer(RegionCoprocessorEnvironment env) throws IOException {
    this.serverName = env.getServerName();
    this.host = HostServer.of(env);
    this.self = HBaseKeyLocator.nodeId(serverName);
    this.config = GStoreConfig.from(env.getConfiguration());
    this.faults = new TestFaults(config.testFaultsEnabled(), System::currentTimeMillis);
    this.secrets = ClusterSecrets.of(config);
    OwnerToken ownerToken = secrets.ownerTokens();
    this.writeFence = new WriteFence(hosted, ownerToken, config.testPlant());
    VersionClock versions = new VersionClock();
    MetricRegistry registry = GStoreMetrics.held(env.getMetricRegistryForRegionServer());
    GStoreMetrics metrics = new GStoreMetrics(registry);
    this.hbase = PooledConnection.of(env.getConnection(), serverName, metrics::hbaseCalled);
    this.tables = new StateTables(hbase, versions);
    this.locator = new HBaseKeyLocator(hbase, threads("locator"));
    this.peers = new PeerRegistry(env.getConfiguration());
    this.transport = new UdpTransport(secrets.datagrams(), metrics);
    this.walRoot = GStoreConfig.walRoot(env.getConfiguration());
    this.walFs = walRoot.getFileSystem(env.getConfiguration());
    this.recoveryZnodes = new RecoveryZnodes(peers::session,
        env.getConfiguration().get(HConstants.ZOOKEEPER_ZNODE_PARENT, HConstants.DEFAULT_ZOOKEEPER_ZNODE_PARENT),
        peers.acl());
    this.instanceLog = new InstanceLog(serverName.getServerName(), walFs, walRoot, config,
        new WalMetrics(registry), recoveryZnodes, e -> fatal(e.getMessage(), e));
    String log = instanceLog.log();
    this.wal = instanceLog.wal();
    this.shipper = new UpdateShipper(hbase, ownerToken, config.shipperDurability(), wal.streams(),
        config.shipperDelayMillis());
    shipper.ledger().quarantineRetryMillis(config.quarantineRetryMillis());
    // a replay must be persisted before the groups it restores serve again: SYNC_WAL whatever the shipper uses
    WalRecovery recovery = new WalRecovery(walFs, walRoot, log, recoveryZnodes,
        new CommitApplier(hbase, ownerToken, Durability.SYNC_WAL,
            (int) WalRecovery.DEFAULT_ATTEMPT_MILLIS),
        changes -> tables.writeVersioned(changes, (int) WalRecovery.DEFAULT_ATTEMPT_MILLIS),
        config.recoveryRetainMillis());
    this.stateLog = config.protocolLogged() ? new LoggedStateStore(serverName.getAddress().toString(), wal,
        shipper.ledger(), versions, tables::writeVersioned, config.checkpointDelayMillis(), metrics) : null;
    this.heartbeat = new PersistenceHeartbeat(serverName.getServerName(), log, recoveryZnodes,
        host::syncHBaseWals, shipper.ledger(), wal::truncate, System::currentTimeMillis,
        config.recoveryRetainMillis(), config.recoveryZombieWindowMillis());
    this.alerts = new ThresholdAlerts(config.alertShippingLagMillis(), config.alertStalledMillis());

    ReleaseGate releaseGate = new ReleaseGate();
    DatagramOutbox outbox = new DatagramOutbox(releaseGate, peers, locator, transport, faults::drops);
    this.writer = new StepWriter(serverName.getAddress().toString(), stateLog != null ? stateLog : tables,
        wal::checkNotFenced, this::fatal,
        new FenceUpdates(hosted, new SkewSafeRelease(hosted, EnvironmentEdgeManager::currentTime,
            config.maxFutureMillis())), metrics,
        outbox::send, waiters::answer, waiters::fail);
    this.runtime = new ProtocolRuntime(self, config.protocol(), config.endpointWaitMillis(), () -> {
      tables.ensureExist();
      recovery.replayOwnProtocolState(); // an earlier G-Store here may have logged reservations the tables miss
      return tables.reservedUids(self);
    }, hosted, locator, metrics, writer, waiters, threads("protocol"), threads("engine-start"));
    this.transactions = new ServerTransactions(env.getConfiguration(), config, hbase, hosted, wal, shipper, metrics,
        runtime::awaitGroup, this::leadsHere, faults::now, threads("cache-reads"),
        host::descriptorServedHere, threads("table-guard"));
    this.regions = new RegionLifecycle(serverName.getServerName(), tables, hosted, runtime, writer, recovery,
        transactions.handover(), metrics, host::stopping, () -> crashed, this::fatal, threads("loader"), threads("recovery"));
    ThresholdWatch watch = new ThresholdWatch(serverName.getServerName(), heartbeat, shipper.ledger(), alerts,
        recoveryZnodes, System::currentTimeMillis, regions::longestReplayWaitMillis);
    this.beats = new ServerBeats(watch, transactions.persistedMarks(), stateLog, config.recoveryHeartbeatMillis(),
        new DepartureFencing(recoveryZnodes, recovery), config.recoveryDeparturePollMillis(), this::threads);
    this.deletes = new GroupDeletes(self, transactions.handover()::stopCommits, releaseGate, runtime::submit,
        outbox::send, writer::letOut, config.endpointWaitMillis(), threads("release"));
    this.leases = new GroupLeases(runtime::liveGroups, this::leadsHere, tables, wal::checkNotFenced, deletes::delete,
        metrics, faults::now, threads("leases"));
    // last: a constructor that threw after it would leave a server the gauges read for ever
    this.gauges = new ServerGauges(registry, runtime, hosted, deletes, shipper.ledger(), heartbeat, alerts, wal,
        stateLog);
  }

  /**
   * Binds the datagram socket, registers this server (its peer address, its recovery znode, this instance's log as
   * its current one), then starts the heartbeat and the engine. Before anything else takes a write here.
   */
  private void startServing() throws InterruptedException, IOException {
    // by default only on the region server's own address, not every interface of the host
    String bindAddress = config.udpBindAddress().isEmpty() ? serverName.getHostname() : config.udpBindAddress();
    InetSocketAddress bound = transport.startInRange(bindAddress, config.udpPort(), config.udpPortLast(),
        GStoreConfig.UDP_PORT, config.datagramMaxBytes(), runtime::receive);
    String advertised = "0.0.0.0".equals(bindAddress) ? serverName.getHostname() : bindAddress;
    peers.register(self, new InetSocketAddress(advertised, bound.getPort()));
    instanceLog.register(); // before any region here takes a write
    peers.warnIfUnauthenticated();
    beats.start();
    LOG.info("G-Store {} peer {} listening on {}:{}; {}", GStoreVersion.current(), self, advertised, bound.getPort(),
        secrets.fingerprints());
    runtime.start();
    leases.start();
  }

  private ThreadFactory threads(String role) {
    return ServerThreads.named(role, serverName);
  }

  ServerName serverName() {
    return serverName;
  }

  /** A G-Store region opened here; see {@link RegionLifecycle}. */
  public void regionOpened(Region region) {
    regions.opened(region);
  }

  /**
   * A G-Store region is closing: its keys stop being served and what was decided about them is made durable.
   *
   * @throws IOException if that failed: the close must fail (the region server aborts; see {@link RegionLifecycle})
   */
  public void regionClosing(RegionInfo info) throws IOException {
    regions.closing(info);
  }

  @Override
  public boolean isReady(RegionInfo info) {
    return hosted.isReady(info);
  }

  @Override
  public boolean awaitReady(RegionInfo info, long millis) {
    return hosted.awaitReady(info, millis);
  }

  @Override
  public boolean leadsHere(Key leader) {
    return regions.serves(leader);
  }

  /** Checks plain writes to this server's G-Store regions against the groups' fences. */
  public WriteFence writeFence() {
    return writeFence;
  }

  @Override
  public CompletableFuture<Reply> submit(ClientRequest request) {
    return runtime.submit(request);
  }

  @Override
  public CompletableFuture<Reply> delete(ClientRequest.Delete request) throws IOException {
    return deletes.delete(request);
  }

  @Override
  public void forget(String requestId, CompletableFuture<Reply> reply) {
    waiters.forget(requestId, reply);
  }

  @Override
  public CompletableFuture<Optional<GroupRecord>> group(GroupId id) {
    return runtime.group(id);
  }

  @Override
  public List<GroupLeases.Answer> renewLeases(List<GroupId> ids, String holder) throws IOException {
    return leases.renew(ids, holder);
  }

  @Override
  public GroupStat groupStat(GroupId id) throws IOException {
    if (!leadsHere(id.leader())) {
      return null;
    }
    Optional<GroupRecord> record = runtime.awaitGroup(id);
    if (record.isEmpty()) {
      return null;
    }
    GroupRef group = record.get().group();
    GroupCache.Activity activity = transactions.manager().activity(id);
    return new GroupStat(record.get().phase(), shipper.ledger().queuedCount(group),
        shipper.ledger().pendingCount(group), leases.lease(id), activity.commits(), activity.conflicts());
  }

  @Override
  public void testFault(Set<NodeId> dropTo, long skewMillis, long durationMillis) throws IOException {
    faults.inject(dropTo, skewMillis, durationMillis);
  }

  @Override
  public List<RecoveryStatusReader.ServerStatus> recoveryStatus() throws IOException {
    return RecoveryStatusReader.read(recoveryZnodes, walFs, walRoot);
  }

  @Override
  public void preload(GroupId id) {
    transactions.preload(id);
  }

  @Override
  public String problemWith(String table) throws IOException {
    return transactions.tableGuard().problemWith(table);
  }

  /** The transaction side: caches, loads, commits. */
  public ServerTransactions transactions() {
    return transactions;
  }

  @Override
  public GStoreConfig config() {
    return config;
  }

  /** This instance's {@link LogId}: its WAL directory under {@code gstore.wal.dir}, and its thresholds' name. */
  public String log() {
    return instanceLog.log();
  }

  /** This leader's alerts on thresholds that stopped advancing. */
  public ThresholdAlerts alerts() {
    return alerts;
  }

  /** The leases of the groups this server leads. */
  public GroupLeases leases() {
    return leases;
  }

  /** This server's update shipper (its T_F, what it holds until persisted). */
  public UpdateShipper shipper() {
    return shipper;
  }

  /** For tests ({@link GStoreServers#crash}): stops as {@code kill -9} would. */
  void crash() {
    crashed = true;
    close();
  }

  /**
   * G-Store cannot go on here without risking what it promised: a recovery fenced its WAL (HBase declared this
   * server dead and another may already serve its groups), or a closing region could not hand over its state. It
   * stops as if it had crashed (no drain, nothing let out) and takes its region server down, as HBase does when
   * its own WAL is fenced or a closing region cannot flush. Its groups are recovered from durable state.
   */
  private void fatal(String why, Throwable cause) {
    if (crashed || !stoppedFatally.compareAndSet(false, true)) {
      return; // crashed (a test's kill) or already stopping for a fatal cause: abort once
    }
    crashed = true;
    writer.halt(why);
    LOG.error("G-Store on {} must stop: {}; aborting the region server", serverName, why);
    host.abort("G-Store: " + why, cause);
  }

  /** Its region server aborts: regions close without flushing, so G-Store must stop as if it crashed. */
  public void aborting() {
    aborting = true;
    hosted.phases().stopAll(); // no region loads here any more: calls waiting for one go on (refused)
  }

  /** Stops every part, in the reverse order of their start. */
  @Override
  public void close() {
    gauges.close();
    hosted.phases().stopAll();
    leases.close();
    runtime.close();
    locator.close();
    beats.stop();
    regions.close();
    deletes.close();
    writer.close();
    boolean checkpointed = stateLog == null || stateLog.close(!crashed && !aborting);
    tables.close();
    transactions.close();
    shipper.close();
    boolean persisted = !aborting && checkpointed && shipper.ledger().pendingCount() == 0; // quarantined included
    instanceLog.close(crashed, persisted, shipper.ledger().pendingCount());
    peers.retire(); // publishes nothing more; its session serves the unregistering, then closes
    beats.afterStopped(() -> {
      // a withdrawn claim tells every leader that this server persisted all it was shipped: never after an abort
      if (!crashed && !aborting && !host.aborted()) {
        GStoreServers.unlessRestarted(serverName, instanceLog::unregister);
      }
      peers.close();
    });
    transport.close();
    hbase.close();
    waiters.failAll(new IOException("G-Store on " + serverName + " is shutting down"));
  }
}
