package org.gstore.bench;

import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * What one run point records: operation latencies (HdrHistogram, microseconds), operation count, and transaction
 * commits and aborts. Shared by the run's client threads; measurements start after the warm-up.
 */
final class Recorder {
  private final org.HdrHistogram.Recorder latencies = new org.HdrHistogram.Recorder(3);
  private final AtomicLong ops = new AtomicLong();
  private final AtomicLong commits = new AtomicLong();
  private final AtomicLong aborts = new AtomicLong();
  private final long measureFrom;
  private final long endAt;

  Recorder(long warmupNanos, long durationNanos) {
    long now = System.nanoTime();
    this.measureFrom = now + warmupNanos;
    this.endAt = measureFrom + durationNanos;
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

  Result result(String system, String workload, int clients) {
    Histogram h = latencies.getIntervalHistogram();
    double seconds = (endAt - measureFrom) / 1e9;
    long c = commits.get();
    long a = aborts.get();
    return new Result(system, workload, clients, ops.get(), ops.get() / seconds,
        h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(50) / 1e3,
        h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(99) / 1e3,
        h.getTotalCount() == 0 ? 0 : h.getMean() / 1e3,
        c + a == 0 ? 0 : (double) a / (c + a));
  }

  /** One row of the summary. */
  record Result(String system, String workload, int clients, long ops, double throughput, double p50Ms,
      double p99Ms, double meanMs, double abortRate) {}
}
