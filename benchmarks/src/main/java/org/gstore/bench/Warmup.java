package org.gstore.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/**
 * Warms the cluster up until its JIT has settled: rounds of every workload on every system, untimed, until the
 * compiling a round caused is at most {@link #SETTLED_SHARE} of its length, or the cap is reached. A point measured
 * while the JIT still compiles the servers' code mixes G-Store's cost with the compiler's (measured on 2026-11-27:
 * the compiler threads still took 0.24 cores two and a half minutes into a run), and the systems measured first
 * pay more of it than those measured later.
 */
final class Warmup {
  /** A round whose compile time is at most this share of its length leaves the JIT settled. */
  static final double SETTLED_SHARE = 0.02;

  /** One warm-up round: every workload on every system once. */
  interface Round {
    void run() throws Exception;
  }

  /**
   * What the warm-up did.
   *
   * @param lastShare the compile time of the last round, as a share of its length
   * @param compileMillis the cluster's JIT compile time when it ended, since its JVMs started
   */
  record Outcome(int rounds, long millis, double lastShare, long compileMillis, boolean settled) {
    String describe() {
      if (rounds == 0) {
        return "no warm-up";
      }
      return String.format(Locale.ROOT, "warm-up: %d rounds, %d s; the JIT %s (it compiled %.1f%% of the last"
          + " round's time; %.0f s of compiling in all)", rounds, millis / 1000,
          settled ? "settled" : "had NOT settled when the cap stopped it", 100 * lastShare, compileMillis / 1e3);
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
      share = now.minus(last).compileMillis() / Math.max(1.0, elapsedMillis(roundStart));
      last = now;
      out.printf(Locale.ROOT, "  warm-up round %d: the JIT compiled %.1f%% of it%n", rounds, 100 * share);
      if (share <= SETTLED_SHARE) {
        break;
      }
    }
    return new Outcome(rounds, elapsedMillis(start), share, last.compileMillis(),
        rounds > 0 && share <= SETTLED_SHARE);
  }

  private ClusterCpu.Sample sample() throws IOException {
    return cpu.sample(List.of());
  }

  private static long elapsedMillis(long since) {
    return (System.nanoTime() - since) / 1_000_000;
  }
}
