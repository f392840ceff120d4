package org.gstore.bench;

import java.io.IOException;
import java.util.Collection;

/**
 * The CPU the cluster spends, and how much compiling its JIT has done: what a benchmark point charges per
 * operation, and what tells the warm-up that the servers' code is compiled. The benchmark's own work (its client
 * threads) is not the cluster's.
 */
interface ClusterCpu {
  /** The cluster's CPU so far, less that of {@code clients} (threads of this JVM), and its JIT's time so far. */
  Sample sample(Collection<Thread> clients) throws IOException;

  /** What is measured, for the report ({@code "this JVM less its JIT and clients"}, ...). */
  String describe();

  /**
   * @param cpuNanos CPU time spent by the cluster's processes (or, embedded, this JVM less the JIT and clients)
   * @param jitMillis time the cluster's JIT compilers spent: their threads' CPU where it can be read (the embedded
   *     cluster on Linux), else the JVMs' total compilation time (which also counts a compile's waits for a core)
   */
  record Sample(long cpuNanos, long jitMillis) {
    Sample minus(Sample earlier) {
      return new Sample(cpuNanos - earlier.cpuNanos, jitMillis - earlier.jitMillis);
    }
  }
}
