package org.gstore.coprocessor;

import java.util.EnumMap;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.hadoop.hbase.metrics.Counter;
import org.apache.hadoop.hbase.metrics.Gauge;
import org.apache.hadoop.hbase.metrics.MetricRegistry;
import org.gstore.common.protocol.ProtocolStats;
import org.gstore.common.wire.DatagramRejectedException.Reason;

/**
 * G-Store's region-server metrics, in the registry HBase gives coprocessors: exported through Hadoop metrics2, so
 * they appear in the region server's JMX under {@code Coprocessor.Region.CP_org.gstore.coprocessor.GStoreRegionCoprocessor}.
 */
final class GStoreMetrics {
  private final Counter datagramsSent;
  private final Counter datagramsReceived;
  private final Map<Reason, Counter> datagramsDropped = new EnumMap<>(Reason.class);
  private final Counter stateWrites;
  private final Counter stateWriteFailures;

  GStoreMetrics(MetricRegistry registry) {
    datagramsSent = registry.counter("datagramsSent");
    datagramsReceived = registry.counter("datagramsReceived");
    for (Reason r : Reason.values()) {
      datagramsDropped.put(r, registry.counter("datagramsDropped" + camel(r.name())));
    }
    stateWrites = registry.counter("stateWrites");
    stateWriteFailures = registry.counter("stateWriteFailures");
  }

  /** Gauges over the protocol engine's counters and the fence; {@code stats} is read, racily, from JMX threads. */
  void registerProtocol(MetricRegistry registry, Supplier<ProtocolStats> stats, Supplier<Integer> groupsLed,
      Supplier<Integer> fencedRows) {
    gauge(registry, "groupsLed", () -> (long) groupsLed.get());
    gauge(registry, "rowsFenced", () -> (long) fencedRows.get());
    gauge(registry, "groupsCreated", () -> stats.get().groupsCreated());
    gauge(registry, "groupsFailed", () -> stats.get().groupsFailed());
    gauge(registry, "groupsDeleted", () -> stats.get().groupsDeleted());
    gauge(registry, "protocolMessagesSent", () -> stats.get().messagesSent());
    gauge(registry, "protocolMessagesRetried", () -> stats.get().messagesRetried());
    gauge(registry, "protocolMessagesUnroutable", () -> stats.get().messagesUnroutable());
    gauge(registry, "protocolNotMineReceived", () -> stats.get().notMineReceived());
  }

  private static void gauge(MetricRegistry registry, String name, Supplier<Long> value) {
    registry.register(name, (Gauge<Long>) value::get);
  }

  void datagramSent() {
    datagramsSent.increment();
  }

  void datagramReceived() {
    datagramsReceived.increment();
  }

  void datagramDropped(Reason reason) {
    datagramsDropped.get(reason).increment();
  }

  long datagramsDropped(Reason reason) {
    return datagramsDropped.get(reason).getCount();
  }

  long datagramsReceived() {
    return datagramsReceived.getCount();
  }

  void stateWritten() {
    stateWrites.increment();
  }

  void stateWriteFailed() {
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
