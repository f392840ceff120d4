package org.gstore.bench;

import java.io.IOException;
import java.util.Collection;

/**
 * The CPU the cluster spends, and how much compiling its JIT has done: what a benchmark point charges per
 * operation, and what tells the warm-up that the servers' code is compiled. The benchmark's own work (its client
 * threads) is not the cluster's.
 */
interface ClusterCpu {
  /** The cluster's CPU so far, less that of {@code clients} (threads of this JVM), and its JIT's compile time. */
  Sample sample(Collection<Thread> clients) throws IOException;

  /** What is measured, for the report ({@code "this JVM less its JIT and clients"}, ...). */
  String describe();

  /**
   * @param cpuNanos CPU time spent by the cluster's processes (or, embedded, this JVM less the JIT and clients)
   * @param compileMillis total time the cluster's JIT compilers have compiled, as the JVMs report it
   */
  record Sample(long cpuNanos, long compileMillis) {
    Sample minus(Sample earlier) {
      return new Sample(cpuNanos - earlier.cpuNanos, compileMillis - earlier.compileMillis);
    }
  }
}
