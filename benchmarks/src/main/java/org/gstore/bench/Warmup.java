package org.gstore.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/**
 * Warms the cluster up until its JIT has settled: rounds of every workload on every system, untimed, until the JIT's
 * time during a round ({@link ClusterCpu.Sample#jitMillis}) is at most {@link #SETTLED_SHARE} of the round's
 * length, or the cap is reached. A point measured
 * while the JIT still compiles the servers' code mixes G-Store's cost with the compiler's (measured on 2026-11-27:
 * the compiler threads still took 0.24 cores two and a half minutes into a run), and the systems measured first
 * pay more of it than those measured later.
 */
final class Warmup {
  /** A round whose JIT time is at most this share of its length leaves the JIT settled. */
  static final double SETTLED_SHARE = 0.02;

  /** One warm-up round: every workload on every system once. */
  interface Round {
    void run() throws Exception;
  }

  /**
   * What the warm-up did.
   *
   * @param lastShare the JIT's time during the last round, as a share of its length
   * @param jitMillis the cluster's JIT time when it ended, since its JVMs started
   */
  record Outcome(int rounds, long millis, double lastShare, long jitMillis, boolean settled) {
    String describe() {
      if (rounds == 0) {
        return "no warm-up";
      }
      return String.format(Locale.ROOT, "warm-up: %d rounds, %d s; the JIT %s (it took %.1f%% of the last"
          + " round's time; %.0f s in all)", rounds, millis / 1000,
          settled ? "settled" : "had NOT settled when the cap stopped it", 100 * lastShare, jitMillis / 1e3);
    }
  }

  private final ClusterCpu cpu;
  private final long capMillis;
  private final PrintStream out;

  /** @param capMillis the most the warm-up takes (0: no warm-up) */
  Warmup(ClusterCpu cpu, long capMillis, PrintStream out) {
    this.cpu = cpu;
    this.capMillis = capMillis;
    this.out = out;
  }

  Outcome run(Round round) throws Exception {
    long start = System.nanoTime();
    int rounds = 0;
    double share = Double.NaN;
    ClusterCpu.Sample last = sample();
    while (elapsedMillis(start) < capMillis) {
      long roundStart = System.nanoTime();
      round.run();
      rounds++;
      ClusterCpu.Sample now = sample();
      share = now.minus(last).jitMillis() / Math.max(1.0, elapsedMillis(roundStart));
      last = now;
      out.printf(Locale.ROOT, "  warm-up round %d: the JIT took %.1f%% of it%n", rounds, 100 * share);
      if (share <= SETTLED_SHARE) {
        break;
      }
    }
    return new Outcome(rounds, elapsedMillis(start), share, last.jitMillis(),
        rounds > 0 && share <= SETTLED_SHARE);
  }

  private ClusterCpu.Sample sample() throws IOException {
    return cpu.sample(List.of());
  }

  private static long elapsedMillis(long since) {
    return (System.nanoTime() - since) / 1_000_000;
  }
}
