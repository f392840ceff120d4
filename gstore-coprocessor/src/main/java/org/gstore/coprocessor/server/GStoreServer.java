package org.gstore.coprocessor.server;

import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.OnlineRegions;
import org.apache.hadoop.hbase.regionserver.Region;
import org.apache.hadoop.hbase.util.EnvironmentEdgeManager;
import org.apache.hadoop.hbase.wal.WAL;
import org.gstore.common.protocol.ClientRequest;
import org.gstore.common.protocol.Datagram;
import org.gstore.common.protocol.GroupId;
import org.gstore.common.protocol.GroupRecord;
import org.gstore.common.protocol.NodeId;
import org.gstore.common.protocol.OwnerRecord;
import org.gstore.common.protocol.ProtocolNode;
import org.gstore.common.protocol.ProtocolStats;
import org.gstore.common.protocol.Reply;
import org.gstore.common.protocol.Step;
import org.gstore.common.wire.DatagramCodec;
import org.gstore.common.wire.DatagramRejectedException;
import org.gstore.common.wire.OwnerToken;
import org.gstore.coprocessor.GStoreConfig;
import org.gstore.recovery.ClaimStore;
import org.gstore.recovery.LogId;
import org.gstore.recovery.PersistenceHeartbeat;
import org.gstore.recovery.hbase.RecoveryZnodes;
import org.gstore.recovery.hbase.WalRecovery;
import org.gstore.coprocessor.transport.HBaseKeyLocator;
import org.gstore.coprocessor.transport.PeerRegistry;
import org.gstore.coprocessor.transport.UdpTransport;
import org.gstore.coprocessor.txn.CacheLoader;
import org.gstore.coprocessor.txn.CommitValidator;
import org.gstore.coprocessor.txn.GroupCaches;
import org.gstore.coprocessor.txn.TransactionManager;
import org.gstore.recovery.hbase.CommitApplier;
import org.gstore.coprocessor.wal.SharedWal;
import org.gstore.coprocessor.wal.UpdateShipper;
import org.gstore.coprocessor.wal.WalFencedException;
import org.gstore.recovery.hbase.WalFiles;
import org.gstore.coprocessor.wal.WalMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * G-Store on one region server: the Key Grouping protocol engine for every G-Store region it hosts, adapted to
 * UDP, timers and the state tables. One per region server, shared by its regions' coprocessors.
 *
 * <p>Threads: the engine is single-threaded, so every input (datagram, client request, timer, region open or
 * close) runs on the protocol thread; its steps go to the {@link StepWriter}, which makes them durable before their
 * datagrams and replies leave. Blocking I/O for loading regions runs on a loader thread.
 */
public final class GStoreServer implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(GStoreServer.class);
  private static final Map<ServerName, GStoreServer> SERVERS = new ConcurrentHashMap<>();

  private final ServerName serverName;
  private final NodeId self;
  /** This instance's log: the name of its WAL directory and of its shipments' thresholds. */
  private final String log;
  private final GStoreConfig config;
  private final OwnerToken ownerToken;
  private final StateTables tables;
  private final HostedRegions hosted = new HostedRegions();
  private final GStoreMetrics metrics;
  private final UdpTransport transport;
  private final PeerRegistry peers;
  private final HBaseKeyLocator locator;
  private final StepWriter writer;
  private final SharedWal wal;
  private final UpdateShipper shipper;
  private final TransactionManager transactions;
  private final TableGuard tableGuard;
  private final ScheduledExecutorService protocolThread;
  private final ExecutorService loaderThread;
  /** Runs recovery passes, one region's at a time; a region that must wait is tried again later, not held. */
  private final ScheduledExecutorService recoveryThread;
  private final WalRecovery recovery;
  private final RecoveryZnodes recoveryZnodes;
  private final PersistenceHeartbeat heartbeat;
  private final ScheduledExecutorService heartbeatThread;
  private final ReleaseGate releaseGate = new ReleaseGate();
  /** Retries the deletes whose commits did not reach HBase within the endpoint wait. */
  private final ScheduledExecutorService releaseRetries;
  private final Map<String, List<CompletableFuture<Reply>>> waiters = new ConcurrentHashMap<>();
  private final Set<String> openRegions = ConcurrentHashMap.newKeySet();
  private final CompletableFuture<ProtocolNode> engine = new CompletableFuture<>();
  private int references;
  private ScheduledFuture<?> wakeup;
  private long wakeupAt = Long.MAX_VALUE;
  private volatile boolean closed;
  private volatile boolean crashed;
  private volatile boolean aborting;
  /** Whether the region server is stopping as a whole (every region closes, none reopens here). */
  private final java.util.function.BooleanSupplier serverStopping;
  /** Stops the region server on what G-Store cannot survive (null outside a region server: tools, tests). */
  private final org.apache.hadoop.hbase.Abortable abortServer;

  /** The server of this region server, started by its first G-Store region. */
  public static synchronized GStoreServer acquire(RegionCoprocessorEnvironment env) throws IOException {
    GStoreServer server = SERVERS.get(env.getServerName());
    if (server == null) {
      server = new GStoreServer(env);
      SERVERS.put(env.getServerName(), server);
    }
    server.references++;
    return server;
  }

  /** Called by each region's coprocessor when it stops; the last one closes the server. */
  public static synchronized void release(GStoreServer server) {
    if (--server.references == 0) {
      SERVERS.remove(server.serverName, server);
      server.close();
    }
  }

  private GStoreServer(RegionCoprocessorEnvironment env) throws IOException {
    this.serverName = env.getServerName();
    org.apache.hadoop.hbase.Server regionServer = regionServer(env);
    this.serverStopping = regionServer == null ? () -> false
        : () -> regionServer.isStopping() || regionServer.isStopped() || regionServer.isAborted();
    this.abortServer = regionServer;
    this.self = HBaseKeyLocator.nodeId(serverName);
    this.config = GStoreConfig.from(env.getConfiguration());
    this.ownerToken = new OwnerToken(config.clusterSecret());
    this.tables = new StateTables(env.getConnection());
    this.metrics = new GStoreMetrics(env.getMetricRegistryForRegionServer());
    this.locator = new HBaseKeyLocator(env.getConnection());
    this.peers = new PeerRegistry(env.getConfiguration());
    this.transport = new UdpTransport(new DatagramCodec(config.clusterSecret(), config.datagramMaxBytes(),
        config.datagramFreshnessMillis(), System::currentTimeMillis), metrics);
    this.tableGuard = new TableGuard(env.getConnection(), env.getConfiguration());
    this.protocolThread = Executors.newSingleThreadScheduledExecutor(daemon("gstore-protocol-"));
    WalMetrics walMetrics = new WalMetrics(env.getMetricRegistryForRegionServer());
    Path walRoot = GStoreConfig.walRoot(env.getConfiguration());
    FileSystem walFs = walRoot.getFileSystem(env.getConfiguration());
    this.log = newLog(walFs, walRoot, serverName.getServerName());
    this.wal = new SharedWal(walFs, new Path(walRoot, log), config.walStreams(), config.walRollBytes(),
        config.walHsync(), walMetrics, this::fenced);
    this.writer = new StepWriter(serverName.getAddress().toString(), tables, wal::checkNotFenced, this::fenced,
        hosted, new SkewSafeRelease(hosted, EnvironmentEdgeManager::currentTime, config.maxFutureMillis()), metrics,
        this::send, this::answer, this::fail);
    this.shipper = new UpdateShipper(env.getConnection(), ownerToken, config.shipperDurability(), wal.streams(),
        config.shipperDelayMillis());
    this.recoveryZnodes = new RecoveryZnodes(peers::session,
        env.getConfiguration().get(HConstants.ZOOKEEPER_ZNODE_PARENT, HConstants.DEFAULT_ZOOKEEPER_ZNODE_PARENT),
        peers.acl());
    // a replay must be persisted before the groups it restores serve again: SYNC_WAL whatever the shipper uses
    this.recovery = new WalRecovery(walFs, walRoot, log, recoveryZnodes,
        new CommitApplier(env.getConnection(), ownerToken, Durability.SYNC_WAL,
            (int) WalRecovery.DEFAULT_ATTEMPT_MILLIS),
        config.recoveryRetainMillis());
    OnlineRegions onlineRegions = env.getOnlineRegions();
    this.heartbeat = new PersistenceHeartbeat(serverName.getServerName(), log, recoveryZnodes,
        () -> syncHBaseWals(onlineRegions), shipper.ledger(), wal::truncate, System::currentTimeMillis,
        config.recoveryRetainMillis(), config.recoveryZombieWindowMillis());
    this.heartbeatThread = Executors.newSingleThreadScheduledExecutor(daemon("gstore-persistence-"));
    GroupCaches caches = new GroupCaches(
        new CacheLoader(env.getConnection(), config.maxFutureMillis(), config.snapshotRetentionMillis()),
        this::activeGroup, this::leadsHere, recovery::committedTxns);
    CommitValidator validator = new CommitValidator(tableGuard,
        env.getConfiguration().getLong(HRegion.HBASE_MAX_CELL_SIZE_KEY, HRegion.DEFAULT_MAX_CELL_SIZE),
        config.maxCommitBytes());
    this.transactions = new TransactionManager(metrics, wal, shipper, caches, validator,
        config.endpointWaitMillis(), config.maxFutureMillis());
    this.loaderThread = Executors.newSingleThreadExecutor(daemon("gstore-loader-"));
    this.recoveryThread = Executors.newSingleThreadScheduledExecutor(daemon("gstore-recovery-"));
    this.releaseRetries = Executors.newSingleThreadScheduledExecutor(daemon("gstore-release-"));
    GStoreMetrics.Sources gauges = GStoreMetrics.gauges(env.getMetricRegistryForRegionServer());
    gauges.stats = () -> engine.getNow(null) == null ? new ProtocolStats() : engine.getNow(null).stats();
    gauges.retryTimeoutMillis = () -> engine.getNow(null) == null ? 0L : engine.getNow(null).retryTimeoutMillis();
    gauges.groupsLed = () -> engine.getNow(null) == null ? 0 : engine.getNow(null).groupCount();
    gauges.fencedRows = hosted::fencedRows;
    gauges.deletesHeld = releaseGate::heldGroups;
    gauges.shipper = shipper.ledger();
    gauges.heartbeat = heartbeat;
    gauges.wal = wal;
    try {
      // by default only on the region server's own address, not every interface of the host
      String bindAddress = config.udpBindAddress().isEmpty() ? serverName.getHostname() : config.udpBindAddress();
      InetSocketAddress bound = bindUdp(bindAddress);
      String advertised = "0.0.0.0".equals(bindAddress) ? serverName.getHostname() : bindAddress;
      peers.register(self, new InetSocketAddress(advertised, bound.getPort()));
      recoveryZnodes.register(serverName.getServerName()); // before any region here takes a write
      // names this instance's log as the server's current one: other servers may recover earlier instances' logs
      recoveryZnodes.publishFlushed(serverName.getServerName(), new ClaimStore.Flushed(log, -1));
      if (peers.acl().equals(org.apache.zookeeper.ZooDefs.Ids.OPEN_ACL_UNSAFE)) {
        LOG.warn("G-Store runs on a ZooKeeper without authentication: whoever reaches it can rewrite G-Store's"
            + " persistence claims (gstore/persisted) and make leaders forget commits that are not persisted."
            + " Run HBase with secure ZooKeeper in production (docs/operations.md, \"Limits and security\")");
      }
      heartbeatThread.scheduleWithFixedDelay(heartbeat, config.recoveryHeartbeatMillis(),
          config.recoveryHeartbeatMillis(), TimeUnit.MILLISECONDS);
      LOG.info("G-Store peer {} listening on {}:{}", self, advertised, bound.getPort());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      close();
      throw new java.io.InterruptedIOException("interrupted starting G-Store");
    } catch (IOException | RuntimeException e) {
      close();
      throw e;
    }
    protocolThread.execute(this::startEngine);
  }

  /**
   * The region server G-Store runs in, or null outside one (tools, tests). HBase hands its services only to core
   * coprocessors ({@code HasRegionServerServices}); a table coprocessor reaches the server through the online-regions
   * view its environment exposes, which is the region server itself.
   */
  private static org.apache.hadoop.hbase.Server regionServer(RegionCoprocessorEnvironment env) {
    if (env instanceof org.apache.hadoop.hbase.coprocessor.HasRegionServerServices services) {
      return services.getRegionServerServices();
    }
    return env.getOnlineRegions() instanceof org.apache.hadoop.hbase.Server server ? server : null;
  }

  /**
   * A new {@link LogId} for this instance of G-Store on {@code server}: an earlier instance (G-Store stopped here
   * and started again) keeps its own, its directory is recovered like a dead server's, and claims made for its
   * shipments never cover this one's.
   */
  private static String newLog(FileSystem fs, Path walRoot, String server) throws IOException {
    java.util.Set<String> taken = new java.util.HashSet<>();
    if (fs.exists(walRoot)) {
      for (org.apache.hadoop.fs.FileStatus dir : fs.listStatus(walRoot)) {
        taken.add(dir.getPath().getName());
      }
    }
    for (long instance = System.currentTimeMillis(); ; instance++) { // never an id an earlier instance had
      String log = LogId.of(server, instance);
      if (taken.stream().noneMatch(name -> name.equals(log) || name.startsWith(log + "."))) {
        return log;
      }
    }
  }

  /** Syncs every HBase WAL of this region server (once each, whatever number of regions share it). */
  private static void syncHBaseWals(OnlineRegions onlineRegions) throws IOException {
    Set<WAL> wals = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    for (Region r : onlineRegions.getRegions()) {
      if (r instanceof HRegion h && h.getWAL() != null) {
        wals.add(h.getWAL());
      }
    }
    for (WAL w : wals) {
      w.sync();
    }
  }

  /** The engine's record of a group, read on the protocol thread. */
  private Optional<GroupRecord> activeGroup(GroupId id) throws IOException {
    try {
      return group(id).get(config.endpointWaitMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted reading group " + id);
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new IOException("G-Store could not read the state of group " + id + " in time; retry", e);
    }
  }

  /** Whether {@code leader} is in a region this server serves and that is not closing. */
  public boolean leadsHere(org.gstore.common.protocol.Key leader) {
    Region region = hosted.regionOf(leader);
    return region != null && openRegions.contains(region.getRegionInfo().getEncodedName());
  }

  public TransactionManager transactions() {
    return transactions;
  }

  /** Tables that can hold members, and their descriptors (one cache per server). */
  public TableGuard tableGuard() {
    return tableGuard;
  }

  private java.util.concurrent.ThreadFactory daemon(String prefix) {
    return r -> {
      Thread t = new Thread(r, prefix + serverName.getAddress().toString());
      t.setDaemon(true);
      return t;
    };
  }

  /** Binds G-Store's datagram socket to the first free port of {@code gstore.udp.port}'s range. */
  private InetSocketAddress bindUdp(String bindAddress) throws InterruptedException, IOException {
    for (int port = config.udpPort(); ; port++) {
      try {
        return transport.start(new InetSocketAddress(bindAddress, port), config.datagramMaxBytes(), this::receive);
      } catch (InterruptedException e) {
        throw e;
      } catch (Exception e) { // Netty rethrows the bind failure undeclared
        if (!(e instanceof java.net.BindException) || port >= config.udpPortLast()) {
          throw new IOException("G-Store cannot bind UDP " + bindAddress + ":" + (config.udpPort() == port ? port
              : config.udpPort() + "-" + port) + " (" + GStoreConfig.UDP_PORT + "): " + e.getMessage(), e);
        }
      }
    }
  }

  /** Creates the state tables if needed and starts the engine above this node's reserved uids. */
  private void startEngine() {
    long backoff = 100;
    while (!closed) {
      try {
        tables.ensureExist();
        long reserved = tables.reservedUids(self);
        engine.complete(new ProtocolNode(self, config.protocol(), hosted::hosts, locator, reserved));
        return;
      } catch (IOException | RuntimeException e) {
        LOG.info("G-Store state tables not available yet ({}); retrying", e.toString());
        sleep(backoff);
        backoff = Math.min(backoff * 2, 5_000);
      }
    }
  }

  public GStoreConfig config() {
    return config;
  }

  public OwnerToken ownerToken() {
    return ownerToken;
  }

  public HostedRegions hosted() {
    return hosted;
  }

  // ---- regions

  /**
   * A G-Store region opened here. In three steps, each only while the region stays open: its rows' protocol state
   * is read and its grouped rows fenced (from then on writes are checked against the fence, and a replay can write
   * through it); the WAL of every region server HBase has declared dead is replayed (its groups may be led from
   * this region, and must not serve from a state that misses acknowledged commits); then the state is read again
   * (a zombie of the region's last host may have written some before its log was fenced, never after: see
   * {@link StepWriter}) and the engine serves the region's rows. Writes wait for the first step, G-Store calls for
   * the last.
   */
  public void regionOpened(Region region) {
    String name = region.getRegionInfo().getEncodedName();
    openRegions.add(name);
    engine.thenAcceptAsync(e -> load(region), loaderThread);
  }

  private void load(Region region) {
    RegionInfo info = region.getRegionInfo();
    long backoff = 100;
    while (!closed && openRegions.contains(info.getEncodedName())) {
      try {
        StateTables.Loaded state = tables.load(info.getTable().getNameAsString(), info.getStartKey(),
            info.getEndKey());
        onProtocolThread(engine -> {
          if (openRegions.contains(info.getEncodedName())) {
            state.owners().forEach(o -> hosted.fence(o.key(), o.group()));
            hosted.markWritable(info);
          }
          return Step.NOTHING;
        });
        metrics.regionStateLoaded();
        recoveryThread.execute(() -> serveAfterRecovery(region, 100));
        return;
      } catch (IOException e) {
        LOG.info("cannot load G-Store state of {} yet ({}); retrying", info.getRegionNameAsString(), e.toString());
        sleep(backoff);
        backoff = Math.min(backoff * 2, 5_000);
      }
    }
  }

  /**
   * Serves the region once no log that may hold its groups is left unreplayed. A region that must wait is tried
   * again after {@code backoff} as a new task, so that regions opening behind it on this server are not held too.
   */
  private void serveAfterRecovery(Region region, long backoff) {
    RegionInfo info = region.getRegionInfo();
    if (closed || !openRegions.contains(info.getEncodedName())) {
      return;
    }
    StateTables.Loaded state;
    try {
      WalRecovery.Pass pass = recovery.recoverDeadServers(k -> HostedRegions.contains(info, k));
      metrics.recovered(pass);
      // read again now that every dead server's log is fenced: a zombie of the region's last host may have written
      // state since the first read, but none after the fence that it let out (StepWriter checks it)
      state = tables.load(info.getTable().getNameAsString(), info.getStartKey(), info.getEndKey());
    } catch (Throwable e) { // NOPMD: the region must not wait forever on a task that died
      if (e instanceof WalFiles.CorruptWalException) {
        LOG.error("{}; {} waits for an operator", e.getMessage(), info.getRegionNameAsString());
      } else {
        LOG.warn("G-Store cannot replay the WAL of dead servers yet ({}); {} waits for it", e.toString(),
            info.getRegionNameAsString());
      }
      try {
        recoveryThread.schedule(() -> serveAfterRecovery(region, Math.min(backoff * 2, 5_000)), backoff,
            TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.RejectedExecutionException stopping) {
        // G-Store is stopping here: the region's next host recovers
      }
      return;
    }
    onProtocolThread(engine -> {
      if (!openRegions.contains(info.getEncodedName())) {
        return Step.NOTHING; // closed while loading
      }
      hosted.refence(info, state.owners());
      hosted.markReady(region);
      engine.load(state.groups(), state.owners(), now());
      LOG.debug("G-Store loaded {} groups and {} grouped rows of {}", state.groups().size(),
          state.owners().size(), info.getRegionNameAsString());
      return Step.NOTHING;
    });
  }

  /**
   * A G-Store region is closing: stop serving its keys and wait until every decision already taken about them is
   * durable, so that the region's next host loads all of it. Acts once per region: a later call (the coprocessor's
   * stop, after its preClose) must not touch the keys, which daughters of a split may already serve.
   */
  public void regionClosing(RegionInfo info) {
    if (crashed || !openRegions.remove(info.getEncodedName())) {
      return; // a crashed server drains nothing: what it did not ship is in its WAL
    }
    transactions.regionClosing(k -> HostedRegions.contains(info, k), serverStopping);
    CompletableFuture<Void> drained = new CompletableFuture<>();
    protocolThread.execute(() -> {
      hosted.remove(info);
      ProtocolNode e = engine.getNow(null);
      if (e != null) {
        writer.submit(e.unload(k -> HostedRegions.contains(info, k)));
      }
      writer.barrier().whenComplete((v, t) -> drained.complete(null));
    });
    try {
      drained.get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      LOG.warn("G-Store state of closing region {} not drained: {}", info.getRegionNameAsString(), e.toString());
    }
  }

  /** Whether the engine serves the region's rows (G-Store calls may be answered). */
  public boolean isReady(RegionInfo info) {
    return hosted.isReady(info);
  }

  /** Whether the region's fence is loaded (writes may be checked against it). */
  public boolean isWritable(RegionInfo info) {
    return hosted.isWritable(info);
  }

  // ---- client requests

  /** Submits a request to the engine; the future completes with the leader's answer. */
  public CompletableFuture<Reply> submit(ClientRequest request) {
    CompletableFuture<Reply> reply = new CompletableFuture<>();
    waiters.computeIfAbsent(request.requestId(), id -> new CopyOnWriteArrayList<>()).add(reply);
    onProtocolThread(engine -> engine.handle(request, now()));
    return reply;
  }

  /**
   * Deletes a group. Its commits stop first; the delete is then submitted at once, so that its {@code DELETING}
   * record is written while the group's last commits are made durable in HBase, and the group's releases ({@code D})
   * are held back until they are: a row is never released with a commit of its group missing from HBase. If that
   * takes longer than the endpoint wait, it is retried in the background and the delete finishes by itself.
   */
  public CompletableFuture<Reply> delete(ClientRequest.Delete request) throws IOException {
    Optional<TransactionManager.Release> release = transactions.stopCommits(request.group());
    release.ifPresent(r -> releaseGate.hold(r.group()));
    CompletableFuture<Reply> reply = submit(request);
    release.ifPresent(this::finishRelease);
    return reply;
  }

  /** Lets the group's releases go once its commits are durable in HBase; retried every second until they are. */
  private void finishRelease(TransactionManager.Release release) {
    try {
      release.awaitDurable();
      releaseGate.open(release.group(), self).forEach(this::send);
      return;
    } catch (IOException e) {
      LOG.warn("G-Store holds the releases of deleted group {} until its commits are in HBase ({}); retrying",
          release.group(), e.getMessage());
    } catch (RuntimeException e) { // NOPMD: neither the end of the retry thread nor a release held for good
      LOG.error("G-Store failed to finish the delete of {}; retrying", release.group(), e);
    }
    try {
      releaseRetries.schedule(() -> finishRelease(release), 1, TimeUnit.SECONDS);
    } catch (java.util.concurrent.RejectedExecutionException closing) {
      // the WAL keeps the commits; the leader region's next host sends the releases, after replaying it if need be
      LOG.debug("G-Store is closing: the releases of {} are left to the leader region's next host", release.group());
    }
  }

  /** Stops waiting for an answer (the caller gave up; a retry with the same request id waits anew). */
  public void forget(String requestId, CompletableFuture<Reply> reply) {
    List<CompletableFuture<Reply>> list = waiters.get(requestId);
    if (list != null) {
      list.remove(reply);
      if (list.isEmpty()) {
        waiters.remove(requestId, list);
      }
    }
  }

  public CompletableFuture<Optional<GroupRecord>> group(GroupId id) {
    CompletableFuture<Optional<GroupRecord>> result = new CompletableFuture<>();
    onProtocolThread(engine -> {
      result.complete(engine.group(id));
      return Step.NOTHING;
    });
    return result;
  }

  private void fail(String requestId, Throwable cause) {
    List<CompletableFuture<Reply>> list = waiters.remove(requestId);
    if (list != null) {
      IOException e = new IOException("G-Store could not record request " + requestId + ": " + cause, cause);
      list.forEach(f -> f.completeExceptionally(e));
    }
  }

  private void answer(Reply reply) {
    List<CompletableFuture<Reply>> list = waiters.remove(reply.requestId());
    if (list != null) {
      list.forEach(f -> f.complete(reply));
    }
  }

  // ---- the engine's inputs and outputs

  private void receive(Datagram d) {
    if (!d.to().equals(self)) { // authentic but meant for another server (or an earlier one on this port)
      metrics.datagramDropped(DatagramRejectedException.Reason.MISADDRESSED);
      return;
    }
    onProtocolThread(engine -> engine.receive(d, now()));
  }

  private void send(Datagram unfiltered) {
    Datagram d = releaseGate.pass(unfiltered);
    if (d == null) {
      return;
    }
    InetSocketAddress to = peers.addressOf(d.to());
    if (to == null) {
      // the server is gone or runs no G-Store region: its keys moved; look them up afresh for the retries
      LOG.debug("no G-Store peer {}; re-resolving its keys", d.to());
      d.messages().forEach(m -> locator.invalidate(m.destination()));
      return;
    }
    try {
      transport.send(d, to);
    } catch (RuntimeException e) { // never the writer thread's end: the protocol's retries make up for the loss
      LOG.error("G-Store could not send a datagram to {}", d.to(), e);
    }
  }

  /** Runs an engine input on the protocol thread (once the engine exists) and passes its step on. */
  private void onProtocolThread(Function<ProtocolNode, Step> input) {
    engine.thenAcceptAsync(e -> {
      if (closed) {
        return;
      }
      try {
        writer.submit(input.apply(e));
      } catch (Throwable ex) { // NOPMD: an Error must not skip the wake-up below, or the engine's timers stop
        LOG.error("G-Store protocol step failed", ex);
      } finally {
        scheduleWakeup(e);
      }
    }, protocolThread);
  }

  private void scheduleWakeup(ProtocolNode e) {
    long next = e.nextWakeup();
    if (next >= wakeupAt || next == Long.MAX_VALUE) {
      return;
    }
    if (wakeup != null) {
      wakeup.cancel(false);
    }
    wakeupAt = next;
    wakeup = protocolThread.schedule(() -> {
      wakeupAt = Long.MAX_VALUE;
      wakeup = null;
      onProtocolThread(engine -> engine.tick(now()));
    }, Math.max(0, next - now()), TimeUnit.MILLISECONDS);
  }

  private static long now() {
    return System.currentTimeMillis();
  }

  private static void sleep(long millis) {
    try {
      TimeUnit.MILLISECONDS.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** For tests and tools: G-Store on region server {@code name} in this JVM, or null if it does not run there. */
  public static GStoreServer on(ServerName name) {
    return SERVERS.get(name);
  }

  /** This instance's {@link LogId}: its WAL directory under {@code gstore.wal.dir}, and its thresholds' name. */
  public String log() {
    return log;
  }

  /** This server's update shipper (its T_F, what it holds until persisted). */
  public UpdateShipper shipper() {
    return shipper;
  }

  /**
   * For tests: stops G-Store on region server {@code name} dead, as {@code kill -9} would: no drain, no shipping, no
   * datagrams, no further state writes; WAL files are left as they are (not even closed), and the peer's znode goes.
   * The region server itself is left to the caller to kill. Nothing happens if G-Store does not run there.
   */
  public static synchronized void crash(ServerName name) {
    GStoreServer server = SERVERS.get(name);
    if (server != null) {
      server.crashed = true;
      server.close();
    }
  }

  /**
   * A recovery fenced this server's WAL: HBase declared it dead and another server may already serve its groups.
   * It stops as if it had crashed (no drain, nothing let out) and takes its region server down, as HBase does when
   * its own WAL is fenced.
   */
  private void fenced(WalFencedException e) {
    if (crashed) {
      return;
    }
    crashed = true;
    LOG.error("G-Store on {} is a zombie ({}); aborting the region server", serverName, e.getMessage());
    if (abortServer != null) {
      abortServer.abort("G-Store: " + e.getMessage(), e);
    }
  }

  /** Its region server aborts: regions close without flushing, so G-Store must stop as if it crashed. */
  public void aborting() {
    aborting = true;
  }

  /**
   * Marks the WAL closed cleanly when every commit in it is persisted in HBase, so that the recovery of this
   * instance's log (by the next instance here, or after this server dies) writes nothing again.
   */
  private void closeWal() {
    if (crashed) {
      wal.abandon();
      return;
    }
    boolean persisted = !aborting && shipper.ledger().pendingCount() == 0 && shipper.ledger().quarantinedCount() == 0;
    try {
      if (persisted) {
        wal.closeCleanly();
      } else {
        wal.close();
        LOG.info("G-Store stops with {} commits not yet persisted in HBase; its WAL {} is replayed before their"
            + " groups serve again", shipper.ledger().pendingCount(), log);
      }
    } catch (IOException | RuntimeException e) {
      LOG.warn("G-Store could not mark its WAL {} closed cleanly; it is replayed (idempotent) instead", log, e);
    }
  }

  /** Whether the heartbeat thread ended: a beat still running could publish a claim after the unregistration. */
  private boolean heartbeatStopped() {
    try {
      return heartbeatThread.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /**
   * G-Store stopped here cleanly (every region it held closed, flushing its memstore): its claims must not hold
   * leaders back any longer (a live server that never claims again would pin every leader's threshold).
   */
  private void unregister() {
    try {
      recoveryZnodes.unregister(serverName.getServerName());
      // no instance runs here now: any server may recover the logs of instances before this instant
      recoveryZnodes.publishFlushed(serverName.getServerName(),
          new ClaimStore.Flushed(LogId.of(serverName.getServerName(), System.currentTimeMillis()), -1));
    } catch (IOException | RuntimeException e) {
      LOG.warn("G-Store could not withdraw the persistence claims of {}; leaders hold their commits until it"
          + " claims again or dies", serverName, e);
    }
  }

  @Override
  public void close() {
    closed = true;
    protocolThread.shutdownNow();
    loaderThread.shutdownNow();
    if (heartbeatThread != null) {
      heartbeatThread.shutdownNow();
    }
    if (recovery != null) {
      recovery.close();
    }
    if (recoveryThread != null) {
      recoveryThread.shutdownNow();
    }
    if (releaseRetries != null) {
      releaseRetries.shutdownNow();
    }
    writer.close();
    tables.close();
    if (transactions != null) {
      transactions.close();
    }
    if (shipper != null) {
      shipper.close();
    }
    if (wal != null) {
      closeWal();
    }
    if (!crashed && !aborting && heartbeat != null && heartbeatStopped()) {
      unregister();
    }
    transport.close();
    peers.close();
    waiters.values().forEach(list -> list.forEach(f -> f.completeExceptionally(
        new IOException("G-Store on " + serverName + " is shutting down"))));
  }
}
