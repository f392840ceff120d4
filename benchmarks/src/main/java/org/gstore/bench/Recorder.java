package org.gstore.bench;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * What one run point records: operation latencies (HdrHistogram, microseconds), operation count, transaction
 * commits and aborts, and the latencies of named phases that are not operations themselves (a game's group create
 * and delete). Shared by the run's client threads; measurements start after the warm-up.
 */
final class Recorder {
  private final org.HdrHistogram.Recorder latencies = new org.HdrHistogram.Recorder(3);
  private final AtomicLong ops = new AtomicLong();
  private final AtomicLong commits = new AtomicLong();
  private final AtomicLong aborts = new AtomicLong();
  private final ConcurrentMap<String, org.HdrHistogram.Recorder> phases = new ConcurrentHashMap<>();
  private final long start;
  private final long measureFrom;
  private final long endAt;

  Recorder(long warmupNanos, long durationNanos) {
    long now = System.nanoTime();
    this.start = now;
    this.measureFrom = now + warmupNanos;
    this.endAt = measureFrom + durationNanos;
  }

  /** When measuring starts ({@link System#nanoTime}). */
  long measureFrom() {
    return measureFrom;
  }

  /** When measuring ends ({@link System#nanoTime}). */
  long endAt() {
    return endAt;
  }

  /** Warm-up and measurement together. */
  double totalMillis() {
    return (endAt - start) / 1e6;
  }

  boolean done() {
    return System.nanoTime() >= endAt;
  }

  private boolean measuring() {
    return System.nanoTime() >= measureFrom;
  }

  /** One operation that took {@code nanos}. */
  void op(long nanos) {
    if (measuring()) {
      latencies.recordValue(Math.max(1, nanos / 1_000));
      ops.incrementAndGet();
    }
  }

  /** Transaction outcomes, for the abort rate. */
  void committed() {
    if (measuring()) {
      commits.incrementAndGet();
    }
  }

  void aborted() {
    if (measuring()) {
      aborts.incrementAndGet();
    }
  }

  /** One occurrence of phase {@code name} (for example {@code create}) that took {@code nanos}. */
  void phase(String name, long nanos) {
    if (measuring()) {
      phases.computeIfAbsent(name, n -> new org.HdrHistogram.Recorder(3)).recordValue(Math.max(1, nanos / 1_000));
    }
  }

  /** Operations recorded in the measured window so far (none before it begins). */
  long ops() {
    return ops.get();
  }

  /**
   * @param round which of the point's interleaved rounds this was (1 for the first)
   * @param cpuNanos CPU the cluster spent while measuring, or -1 if unknown
   * @param calls what each operation cost in calls ({@link ServerCalls}); unknown for a system other than G-Store
   */
  Result result(String system, String workload, int clients, int round, long cpuNanos, ServerCalls.PerOp calls) {
    Histogram h = latencies.getIntervalHistogram();
    double seconds = (endAt - measureFrom) / 1e9;
    long c = commits.get();
    long a = aborts.get();
    long n = ops.get();
    return new Result(system, workload, clients, round, n, n / seconds,
        h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(50) / 1e3,
        h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(99) / 1e3,
        h.getTotalCount() == 0 ? 0 : h.getMean() / 1e3,
        c + a == 0 ? 0 : (double) a / (c + a), cpuNanos < 0 || n == 0 ? Double.NaN : cpuNanos / 1e6 / n,
        phaseResults(), calls);
  }

  private Map<String, Phase> phaseResults() {
    Map<String, Phase> results = new TreeMap<>();
    phases.forEach((name, recorder) -> {
      Histogram h = recorder.getIntervalHistogram();
      results.put(name, new Phase(h.getTotalCount(), h.getValueAtPercentile(50) / 1e3,
          h.getValueAtPercentile(99) / 1e3, h.getMean() / 1e3));
    });
    return results;
  }

  /**
   * One row of the summary: one system's run of one point (workload and client count) in one round;
   * {@code cpuMsPerOp} is the cluster's CPU per operation (NaN if unknown), {@code phases} by name, empty for
   * workloads that record none.
   */
  record Result(String system, String workload, int clients, int round, long ops, double throughput, double p50Ms,
      double p99Ms, double meanMs, double abortRate, double cpuMsPerOp, Map<String, Phase> phases,
      ServerCalls.PerOp calls) {}

  /** How often a phase happened and how long it took. */
  record Phase(long count, double p50Ms, double p99Ms, double meanMs) {}
}
