package org.gstore.coprocessor.metrics;

import java.util.EnumMap;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.hadoop.hbase.metrics.Counter;
import org.apache.hadoop.hbase.metrics.Gauge;
import org.apache.hadoop.hbase.metrics.MetricRegistry;
import org.gstore.common.protocol.ProtocolStats;
import org.gstore.common.wire.DatagramRejectedException.Reason;
import org.gstore.coprocessor.concurrent.BatchingThread;
import org.gstore.recovery.ThresholdAlerts;
import org.gstore.recovery.ShipmentLedger;

/**
 * G-Store's region-server metrics, in the registry HBase gives coprocessors: exported through Hadoop metrics2, so
 * they appear in the region server's JMX under {@code Coprocessor.Region.CP_org.gstore.coprocessor.GStoreRegionCoprocessor}.
 */
public final class GStoreMetrics {
  private final Counter datagramsSent;
  private final Counter datagramsReceived;
  /** Authentic datagrams received in clear by a server that sends them encrypted: a peer leaks what they say. */
  private final Counter datagramsReceivedInClear;
  private final Map<Reason, Counter> datagramsDropped = new EnumMap<>(Reason.class);
  private final Counter stateWrites;
  private final Counter stateWriteFailures;
  private final org.apache.hadoop.hbase.metrics.Histogram stateWriteMicros;
  private final Counter stateCheckpoints;
  private final org.apache.hadoop.hbase.metrics.Histogram stateCheckpointMicros;
  private final Counter txnCommits;
  private final Counter txnConflicts;
  /** Commits whose earlier outcome the leader had to look up in gstore:outcomes (retries across leaders). */
  private final Counter txnOutcomeLookups;
  /** Groups deleted by their leader because their lease lapsed. */
  private final Counter groupLeaseExpiries;
  private final org.apache.hadoop.hbase.metrics.Histogram txnCommitMicros;
  private final org.apache.hadoop.hbase.metrics.Histogram groupLoadMicros;
  /** Rows of loaded caches read by the servers hosting them ({@code LoadRows}, or the leader's own). */
  private final Counter groupLoadRowsAtServers;
  /** Rows of loaded caches read through HBase's client: their server did not read them. */
  private final Counter groupLoadRowsThroughClient;
  private final Counter regionCloseShippingWaits;
  private final Counter walRecoveries;
  private final Counter commitsReplayed;
  private final Counter commitsReplaySkipped;
  private final Counter recoveryMillis;
  private final Counter regionStateLoads;
  /** Data calls G-Store's server parts made to HBase (gets, puts, batches, scanners, endpoint calls). */
  private final Counter hbaseCalls;

  public GStoreMetrics(MetricRegistry registry) {
    datagramsSent = registry.counter("datagramsSent");
    datagramsReceived = registry.counter("datagramsReceived");
    datagramsReceivedInClear = registry.counter("datagramsReceivedInClear");
    for (Reason r : Reason.values()) {
      datagramsDropped.put(r, registry.counter("datagramsDropped" + camel(r.name())));
    }
    stateWrites = registry.counter("stateWrites");
    stateWriteFailures = registry.counter("stateWriteFailures");
    stateWriteMicros = registry.histogram("stateWriteLatencyMicros");
    stateCheckpoints = registry.counter("stateCheckpoints");
    stateCheckpointMicros = registry.histogram("stateCheckpointLatencyMicros");
    txnCommits = registry.counter("txnCommits");
    txnOutcomeLookups = registry.counter("txnOutcomeLookups");
    groupLeaseExpiries = registry.counter("groupLeaseExpiries");
    txnConflicts = registry.counter("txnConflicts");
    txnCommitMicros = registry.histogram("txnCommitLatencyMicros");
    groupLoadMicros = registry.histogram("groupLoadLatencyMicros");
    groupLoadRowsAtServers = registry.counter("groupLoadRowsAtServers");
    groupLoadRowsThroughClient = registry.counter("groupLoadRowsThroughClient");
    regionCloseShippingWaits = registry.counter("regionCloseShippingWaits");
    walRecoveries = registry.counter("walRecoveries");
    commitsReplayed = registry.counter("commitsReplayed");
    commitsReplaySkipped = registry.counter("commitsReplaySkipped");
    recoveryMillis = registry.counter("recoveryMillis");
    regionStateLoads = registry.counter("regionStateLoads");
    hbaseCalls = registry.counter("hbaseCalls");
  }

  /** G-Store's server made one data call to HBase. */
  public void hbaseCalled() {
    hbaseCalls.increment();
  }

  /** A region's group state was loaded (once per region opened with G-Store). */
  public void regionStateLoaded() {
    regionStateLoads.increment();
  }

  /** A recovery pass ended: dead servers' WALs it replayed, commits written and skipped, time taken. */
  public void recovered(org.gstore.recovery.hbase.WalRecovery.Pass pass) {
    if (pass.serversRecovered() > 0) {
      walRecoveries.increment(pass.serversRecovered());
      commitsReplayed.increment(pass.commitsReplayed());
      commitsReplaySkipped.increment(pass.commitsSkipped());
      recoveryMillis.increment(pass.millis());
    }
  }

  /** A closing leader region waited another endpoint wait for its groups' commits to be shipped. */
  public void closeWaitedForShipping() {
    regionCloseShippingWaits.increment();
  }

  /** A transaction committed; {@code nanos} from validation to acknowledgement (WAL sync included). */
  public void committed(long nanos) {
    txnCommits.increment();
    txnCommitMicros.update(nanos / 1_000);
  }

  /**
   * A leader read a group's members into its cache, which took {@code nanos}: {@code atServers} rows read by the
   * servers hosting them, {@code throughClient} through HBase's client (a server that did not read them).
   */
  public void groupLoaded(long nanos, int atServers, int throughClient) {
    groupLoadMicros.update(nanos / 1_000);
    groupLoadRowsAtServers.increment(atServers);
    groupLoadRowsThroughClient.increment(throughClient);
  }

  public void leaseExpired() {
    groupLeaseExpiries.increment();
  }

  public void outcomeLookedUp() {
    txnOutcomeLookups.increment();
  }

  public void conflicted() {
    txnConflicts.increment();
  }

  /**
   * What the gauges read: the region server's current G-Store server. A registry keeps the first gauge
   * registered under a name, and a server is recreated when its region server closes its last G-Store region and
   * opens another, so gauges are registered once per registry and read through this.
   */
  public static final class Sources {
    public volatile Supplier<ProtocolStats> stats = ProtocolStats::new;
    public volatile Supplier<Long> retryTimeoutMillis = () -> 0L;
    public volatile Supplier<Integer> groupsLed = () -> 0;
    public volatile Supplier<Integer> fencedRows = () -> 0;
    public volatile Supplier<Integer> deletesHeld = () -> 0;
    public volatile ShipmentLedger shipper;
    public volatile org.gstore.recovery.PersistenceHeartbeat heartbeat;
    public volatile ThresholdAlerts alerts;
    /** How many files the shared WAL has. */
    public volatile Supplier<Long> walFiles = () -> 0L;
    /** Protocol records in the WAL not yet in the state tables. */
    public volatile Supplier<Integer> protocolRecordsPending = () -> 0;
  }

  private static final Map<MetricRegistry, Sources> SOURCES = new java.util.concurrent.ConcurrentHashMap<>();
  /** The gauges' sources for {@code registry}; the caller points them at its server. */
  public static Sources gauges(MetricRegistry registry) {
    return SOURCES.computeIfAbsent(registry, r -> {
      Sources s = new Sources();
      gauge(r, "groupsLed", () -> (long) s.groupsLed.get());
      gauge(r, "rowsFenced", () -> (long) s.fencedRows.get());
      gauge(r, "deletesAwaitingShipment", () -> (long) s.deletesHeld.get());
      gauge(r, "groupsCreated", () -> s.stats.get().groupsCreated());
      gauge(r, "groupsFailed", () -> s.stats.get().groupsFailed());
      gauge(r, "groupsDeleted", () -> s.stats.get().groupsDeleted());
      gauge(r, "protocolMessagesSent", () -> s.stats.get().messagesSent());
      gauge(r, "protocolMessagesRetried", () -> s.stats.get().messagesRetried());
      gauge(r, "protocolRetryTimeoutMillis", () -> s.retryTimeoutMillis.get());
      gauge(r, "protocolMessagesUnroutable", () -> s.stats.get().messagesUnroutable());
      gauge(r, "protocolNotMineReceived", () -> s.stats.get().notMineReceived());
      gauge(r, "shipperLagRecords", () -> s.shipper == null ? 0L : s.shipper.pendingCount());
      gauge(r, "shipperQuarantined", () -> s.shipper == null ? 0L : s.shipper.quarantinedCount());
      gauge(r, "workerFailures", BatchingThread::failures);
      gauge(r, "shipperLagMillis", () -> s.shipper == null ? 0L : s.shipper.lagMillis(System.currentTimeMillis()));
      gauge(r, "shipperShippedThrough", () -> s.shipper == null ? -1L : s.shipper.shippedThrough());
      gauge(r, "shipperPersistedThrough", () -> s.heartbeat == null ? -1L : s.heartbeat.persistedThrough());
      gauge(r, "shipperUnpersisted", () -> s.shipper == null ? 0L : s.shipper.unpersistedCount());
      gauge(r, "shipperShippedAgain", () -> s.shipper == null ? 0L : s.shipper.shippedAgainCount());
      gauge(r, "shipperPersistedOnDrain", () -> s.shipper == null ? 0L : s.shipper.persistedOnDrainCount());
      gauge(r, "persistenceHeartbeatFailures", () -> s.heartbeat == null ? 0L : s.heartbeat.failures());
      gauge(r, "serverDeathsSeen", () -> s.heartbeat == null ? 0L : s.heartbeat.deathsSeen());
      gauge(r, "walFiles", () -> s.walFiles.get());
      gauge(r, "protocolRecordsPending", () -> (long) s.protocolRecordsPending.get());
      gauge(r, "walFilesDeleted", () -> s.heartbeat == null ? 0L : s.heartbeat.walFilesDeleted());
      gauge(r, "alertsActive", () -> s.alerts == null ? 0L : s.alerts.active().size());
      for (ThresholdAlerts.Cause cause : ThresholdAlerts.Cause.values()) {
        gauge(r, alertGauge(cause), () -> s.alerts != null && s.alerts.isActive(cause) ? 1L : 0L);
      }
      return s;
    });
  }

  /** The gauge of an alert, 1 while it is active: {@code alertShippingBlocked} for SHIPPING_BLOCKED. */
  public static String alertGauge(ThresholdAlerts.Cause cause) {
    StringBuilder name = new StringBuilder("alert");
    for (String word : cause.name().toLowerCase(java.util.Locale.ROOT).split("_")) {
      name.append(Character.toUpperCase(word.charAt(0))).append(word.substring(1));
    }
    return name.toString();
  }

  private static void gauge(MetricRegistry registry, String name, Supplier<Long> value) {
    registry.register(name, (Gauge<Long>) value::get);
  }

  public void datagramSent() {
    datagramsSent.increment();
  }

  /** An authentic datagram came in clear while this server sends encrypted ones. */
  public void datagramReceivedInClear() {
    datagramsReceivedInClear.increment();
  }

  public void datagramReceived() {
    datagramsReceived.increment();
  }

  public void datagramDropped(Reason reason) {
    datagramsDropped.get(reason).increment();
  }

  /** A batch of protocol state became durable, {@code nanos} after the writer started on it. */
  public void stateWritten(long nanos) {
    stateWrites.increment();
    stateWriteMicros.update(nanos / 1_000);
  }

  /** Logged protocol state reached the state tables in one checkpoint, which took {@code nanos}. */
  public void stateCheckpointed(long nanos) {
    stateCheckpoints.increment();
    stateCheckpointMicros.update(nanos / 1_000);
  }

  public void stateWriteFailed() {
    stateWriteFailures.increment();
  }

  private static String camel(String upper) {
    StringBuilder sb = new StringBuilder();
    for (String part : upper.toLowerCase().split("_")) {
      sb.append(Character.toUpperCase(part.charAt(0))).append(part.substring(1));
    }
    return sb.toString();
  }
}
