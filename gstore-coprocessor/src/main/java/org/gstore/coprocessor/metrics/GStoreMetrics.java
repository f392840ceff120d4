package org.gstore.coprocessor.metrics;

import java.util.EnumMap;
import java.util.Map;
import org.apache.hadoop.hbase.metrics.Counter;
import org.apache.hadoop.hbase.metrics.MetricRegistries;
import org.apache.hadoop.hbase.metrics.MetricRegistry;
import org.apache.hadoop.hbase.metrics.MetricRegistryInfo;
import org.gstore.common.wire.DatagramRejectedException.Reason;

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

  private static final Map<MetricRegistryInfo, MetricRegistry> HELD = new java.util.HashMap<>();

  /**
   * The registry G-Store's metrics go to: {@code coprocessors}, the one HBase gives the coprocessor's regions, held
   * for the JVM's life. HBase removes that registry when the JVM's last G-Store region closes and makes a new one
   * when the next opens; its metrics2 adapter, which looks every 10 s and knows registries by name, goes on exporting
   * the removed one when both happen between two looks, and {@code /jmx} and {@code /prometheus} then show a dead
   * registry's numbers until the region server restarts (a balancer swapping a server's only G-Store region does it).
   * One reference more, never given back, keeps the first registry alive.
   */
  public static synchronized MetricRegistry held(MetricRegistry coprocessors) {
    MetricRegistryInfo info = coprocessors.getMetricRegistryInfo();
    MetricRegistry held = HELD.get(info);
    if (held != coprocessors) { // the first, or HBase's registries were cleared (a mini cluster started again)
      held = MetricRegistries.global().create(info);
      HELD.put(info, held);
    }
    return held;
  }

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
