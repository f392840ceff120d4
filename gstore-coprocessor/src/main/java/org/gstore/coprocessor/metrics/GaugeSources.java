package org.gstore.coprocessor.metrics;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;
import org.apache.hadoop.hbase.metrics.Gauge;
import org.apache.hadoop.hbase.metrics.MetricRegistry;
import org.gstore.common.protocol.ProtocolStats;
import org.gstore.coprocessor.concurrent.BatchingThread;
import org.gstore.recovery.PersistenceHeartbeat;
import org.gstore.recovery.ShipmentLedger;
import org.gstore.recovery.ThresholdAlerts;

/**
 * What G-Store's gauges read: the G-Store servers running in the registry's JVM. HBase gives a coprocessor one
 * registry per JVM and a registry keeps the first gauge registered under a name, so the gauges are registered once
 * per registry and read every server that {@linkplain #add joined}: in production the region server's one G-Store
 * server; in a mini cluster, where region servers share a JVM, all of them: counts add up as their counters do, a
 * delay or an alert is the largest, a log position the newest server's. A closing server {@linkplain #remove leaves}
 * first, so no read that starts after it left touches its parts (one already under way may, and every part answers
 * after its close).
 */
public final class GaugeSources {
  /** The parts of one server the gauges read. */
  public record Server(Supplier<ProtocolStats> stats, LongSupplier retryTimeoutMillis, IntSupplier groupsLed,
      IntSupplier fencedRows, IntSupplier deletesHeld, ShipmentLedger shipper, PersistenceHeartbeat heartbeat,
      ThresholdAlerts alerts, LongSupplier walFiles, IntSupplier protocolRecordsPending) {
    /** Every part is there: a gauge that threw would fail the whole scrape of the region server's metrics. */
    public Server {
      for (Object part : new Object[] {stats, retryTimeoutMillis, groupsLed, fencedRows, deletesHeld, shipper,
          heartbeat, alerts, walFiles, protocolRecordsPending}) {
        Objects.requireNonNull(part, "a part of the server the gauges read");
      }
    }
  }

  private static final Map<MetricRegistry, GaugeSources> BY_REGISTRY = new ConcurrentHashMap<>();

  /** Joined servers, oldest first. */
  private final List<Server> servers = new CopyOnWriteArrayList<>();

  private GaugeSources() {
  }

  /** The sources of {@code registry}'s gauges, which are registered with the first call. */
  public static GaugeSources of(MetricRegistry registry) {
    return BY_REGISTRY.computeIfAbsent(registry, r -> {
      GaugeSources s = new GaugeSources();
      s.register(r);
      return s;
    });
  }

  public void add(Server server) {
    servers.add(server);
  }

  public void remove(Server server) {
    servers.removeIf(s -> s == server);
  }

  private void register(MetricRegistry r) {
    gauge(r, "groupsLed", () -> sum(s -> s.groupsLed().getAsInt()));
    gauge(r, "rowsFenced", () -> sum(s -> s.fencedRows().getAsInt()));
    gauge(r, "deletesAwaitingShipment", () -> sum(s -> s.deletesHeld().getAsInt()));
    gauge(r, "groupsCreated", () -> sum(s -> s.stats().get().groupsCreated()));
    gauge(r, "groupsFailed", () -> sum(s -> s.stats().get().groupsFailed()));
    gauge(r, "groupsDeleted", () -> sum(s -> s.stats().get().groupsDeleted()));
    gauge(r, "protocolMessagesSent", () -> sum(s -> s.stats().get().messagesSent()));
    gauge(r, "protocolMessagesRetried", () -> sum(s -> s.stats().get().messagesRetried()));
    gauge(r, "protocolRetryTimeoutMillis", () -> max(s -> s.retryTimeoutMillis().getAsLong(), 0));
    gauge(r, "protocolMessagesUnroutable", () -> sum(s -> s.stats().get().messagesUnroutable()));
    gauge(r, "protocolNotMineReceived", () -> sum(s -> s.stats().get().notMineReceived()));
    gauge(r, "shipperLagRecords", () -> sum(s -> s.shipper().pendingCount()));
    gauge(r, "shipperQuarantined", () -> sum(s -> s.shipper().quarantinedCount()));
    gauge(r, "workerFailures", BatchingThread::failures);
    gauge(r, "shipperLagMillis", () -> max(s -> s.shipper().lagMillis(System.currentTimeMillis()), 0));
    // a threshold is a position in one server's log: the newest server's, never a sum of several
    gauge(r, "shipperShippedThrough", () -> newest(s -> s.shipper().shippedThrough(), -1));
    gauge(r, "shipperPersistedThrough", () -> newest(s -> s.heartbeat().persistedThrough(), -1));
    gauge(r, "shipperUnpersisted", () -> sum(s -> s.shipper().unpersistedCount()));
    gauge(r, "shipperShippedAgain", () -> sum(s -> s.shipper().shippedAgainCount()));
    gauge(r, "shipperPersistedOnDrain", () -> sum(s -> s.shipper().persistedOnDrainCount()));
    gauge(r, "persistenceHeartbeatFailures", () -> sum(s -> s.heartbeat().failures()));
    gauge(r, "serverDeathsSeen", () -> sum(s -> s.heartbeat().deathsSeen()));
    gauge(r, "walFiles", () -> sum(s -> s.walFiles().getAsLong()));
    gauge(r, "protocolRecordsPending", () -> sum(s -> s.protocolRecordsPending().getAsInt()));
    gauge(r, "walFilesDeleted", () -> sum(s -> s.heartbeat().walFilesDeleted()));
    gauge(r, "alertsActive", () -> sum(s -> s.alerts().active().size()));
    for (ThresholdAlerts.Cause cause : ThresholdAlerts.Cause.values()) {
      gauge(r, alertGauge(cause), () -> max(s -> s.alerts().isActive(cause) ? 1 : 0, 0));
    }
  }

  /** The gauge of an alert, 1 while it is active: {@code alertShippingBlocked} for SHIPPING_BLOCKED. */
  public static String alertGauge(ThresholdAlerts.Cause cause) {
    StringBuilder name = new StringBuilder("alert");
    for (String word : cause.name().toLowerCase(Locale.ROOT).split("_")) {
      name.append(Character.toUpperCase(word.charAt(0))).append(word.substring(1));
    }
    return name.toString();
  }

  private long sum(ToLongFunction<Server> value) {
    long sum = 0;
    for (Server s : servers) {
      sum += value.applyAsLong(s);
    }
    return sum;
  }

  private long max(ToLongFunction<Server> value, long none) {
    return servers.stream().mapToLong(value).max().orElse(none);
  }

  private long newest(ToLongFunction<Server> value, long none) {
    List<Server> now = List.copyOf(servers);
    return now.isEmpty() ? none : value.applyAsLong(now.get(now.size() - 1));
  }

  private static void gauge(MetricRegistry registry, String name, LongSupplier value) {
    registry.register(name, (Gauge<Long>) value::getAsLong);
  }
}
