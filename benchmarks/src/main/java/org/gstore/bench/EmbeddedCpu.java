package org.gstore.bench;

import java.io.IOException;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The embedded cluster's CPU: every server runs in this JVM, so the cluster's CPU is the process's less what its
 * JIT compiler threads and the benchmark's client threads spent. Garbage collection stays in: most of it is the
 * servers'. The compiler threads are hidden from Java's thread list, so their CPU is read from Linux's
 * {@code /proc/self/task} (elsewhere it is not subtracted, and {@link #describe} says so).
 */
final class EmbeddedCpu implements ClusterCpu {
  private static final Path TASKS = Path.of("/proc/self/task");
  /** Linux's clock ticks per second, as good as always 100 (USER_HZ). */
  private static final long NANOS_PER_TICK = 10_000_000;

  private final com.sun.management.OperatingSystemMXBean os =
      (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
  private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
  private final CompilationMXBean compiler = ManagementFactory.getCompilationMXBean();
  /** Per compiler thread (Linux task id), the most CPU ticks it was seen to have spent. */
  private final Map<String, Long> compilerTicksSeen = new HashMap<>();

  @Override
  public Sample sample(Collection<Thread> clients) throws IOException {
    long clientNanos = 0;
    for (Thread t : clients) {
      long nanos = threads.getThreadCpuTime(t.getId());
      clientNanos += Math.max(0, nanos);
    }
    long jitNanos = jitNanos();
    return new Sample(os.getProcessCpuTime() - Math.max(0, jitNanos) - clientNanos,
        jitNanos >= 0 ? jitNanos / 1_000_000 : compiler.getTotalCompilationTime());
  }

  @Override
  public String describe() {
    return Files.isDirectory(TASKS) ? "this JVM (every server) less its JIT compiler and client threads"
        : "this JVM (every server) less its client threads; its JIT's CPU is not subtracted off Linux";
  }

  /**
   * CPU of the JIT compiler threads (-1 off Linux) ({@code C1 CompilerThre}, {@code C2 CompilerThre} in Linux). The JVM starts and
   * ends compiler threads as the work queue grows and shrinks: an ended one counts with what it had spent when last
   * seen, not dropping out of the sum (which would charge its CPU to the cluster).
   */
  private synchronized long jitNanos() throws IOException {
    if (!Files.isDirectory(TASKS)) {
      return -1;
    }
    try (Stream<Path> tasks = Files.list(TASKS)) {
      for (Path task : (Iterable<Path>) tasks::iterator) {
        long ticks = compilerTicks(task);
        if (ticks >= 0) {
          compilerTicksSeen.merge(task.getFileName().toString(), ticks, Math::max);
        }
      }
    }
    return compilerTicksSeen.values().stream().mapToLong(Long::longValue).sum() * NANOS_PER_TICK;
  }

  /** The CPU ticks of {@code task} if it is a compiler thread, else -1. */
  private static long compilerTicks(Path task) {
    try {
      if (!Files.readString(task.resolve("comm")).contains("CompilerThre")) {
        return -1;
      }
      String stat = Files.readString(task.resolve("stat"));
      // the fields after the command's closing parenthesis: state is the first, utime the 12th, stime the 13th
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    } catch (IOException | RuntimeException e) {
      return -1; // it ended while being read: it counts with what it had when last seen
    }
  }
}
