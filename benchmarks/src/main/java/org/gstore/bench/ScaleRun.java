package org.gstore.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.BufferedMutatorParams;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.gstore.client.GStoreClient;
import org.gstore.client.GroupSpec;
import org.gstore.client.KeyGroup;
import org.gstore.common.RowGroupedException;
import org.gstore.testing.GStoreTables;

/**
 * G-Store at scale ({@code gstore scale}): many small groups active at once, then a few very large ones.
 *
 * <ol>
 *   <li>{@code clients} threads create {@code groups} atomic groups of {@code k} rows each, every row in exactly one
 *       group and chosen at random (so groups span servers): creates per second, latency, JVM heap per active
 *       group, and the rows of the state tables;
 *   <li>they delete them all: deletes per second and latency; then the state tables are counted until the ended
 *       groups' tombstones are cleaned up ({@code gstore.group.tombstone.retention.ms}) and the tables are back to
 *       their baseline, or {@code tombstoneWait} passed;
 *   <li>{@code largeGroups} groups of {@code largeK} random rows, one at a time: create and delete latency and the
 *       datagrams they took.
 * </ol>
 */
public final class ScaleRun {
  static final TableName TABLE = TableName.valueOf("bench_scale");
  private static final TableName GROUPS = TableName.valueOf("gstore:groups");
  private static final TableName OWNERS = TableName.valueOf("gstore:owners");

  /** What to run; {@code tombstoneWaitMillis} bounds the wait for the state tables to return to baseline. */
  public record Settings(int groups, int k, int clients, int largeGroups, int largeK, long tombstoneWaitMillis) {}

  /**
   * Rows of {@code gstore:groups} and {@code gstore:owners} (in that order) before, with every group active, right
   * after the deletes and at the end of the wait; and how many rows the active groups held in all.
   */
  public record Outcome(long[] before, long[] active, long[] deleted, long[] end, long membersHeld) {}

  private final Connection connection;
  private final Settings s;
  private final PrintStream out;
  private final LongSupplier datagramsSent;
  private final boolean embedded;

  /**
   * @param datagramsSent the servers' datagram count, or null when this JVM cannot see it (a remote cluster)
   * @param embedded whether the cluster runs in this JVM, so that its heap is this JVM's
   */
  public ScaleRun(Connection connection, Settings settings, PrintStream out, LongSupplier datagramsSent,
      boolean embedded) {
    this.connection = connection;
    this.s = settings;
    this.out = out;
    this.datagramsSent = datagramsSent;
    this.embedded = embedded;
  }

  public Outcome run() throws Exception {
    int rows = Math.max(s.groups() * s.k(), s.largeK() * 2);
    prepare(rows);
    List<Integer> shuffled = new ArrayList<>();
    for (int i = 0; i < rows; i++) {
      shuffled.add(i);
    }
    Collections.shuffle(shuffled, new Random(7));
    try (GStoreClient client = GStoreClient.create(connection)) {
      long[] baseline = stateRows();
      long heapBefore = embedded ? usedHeap() : 0;
      out.printf("%d rows in %s; state tables: %d groups rows, %d owners rows%n", rows, TABLE, baseline[0],
          baseline[1]);

      KeyGroup[] active = new KeyGroup[s.groups()];
      Histogram creates;
      Histogram deletes;
      long heapActive;
      long[] withGroups;
      long membersHeld = 0;
      try {
        creates = inParallel("create", s.groups(), g -> {
          List<byte[]> members = new ArrayList<>();
          for (int i = 0; i < s.k(); i++) {
            members.add(Players.row(shuffled.get(g * s.k() + i), rows));
          }
          active[g] = client.createGroup(GroupSpec.builder().members(TABLE, members).atomic().build());
        });
        heapActive = embedded ? usedHeap() : 0;
        withGroups = stateRows();
        for (KeyGroup g : active) {
          membersHeld += g.members().size();
        }
        deletes = inParallel("delete", s.groups(), g -> {
          active[g].delete();
          active[g] = null;
        });
      } finally {
        releaseLeftovers(active); // after a failure: no row of a user's cluster stays in a group of this run
      }
      out.printf("state tables with %d groups active: %d groups rows, %d owners rows%n", s.groups(), withGroups[0],
          withGroups[1]);
      if (embedded) {
        out.printf("JVM heap (3 region servers and the client): %.1f MiB before, %.1f MiB with the groups:"
            + " %.0f bytes per active group%n", heapBefore / 1048576.0, heapActive / 1048576.0,
            (double) (heapActive - heapBefore) / s.groups());
      }
      report("create", creates);
      report("delete", deletes);
      long[] deleted = stateRows();
      out.printf("state tables right after the deletes: %d groups rows (tombstones), %d owners rows%n", deleted[0],
          deleted[1]);
      long[] end = awaitBaseline(baseline);

      for (int i = 0; i < s.largeGroups(); i++) {
        large(client, shuffled, rows, i);
      }
      return new Outcome(baseline, withGroups, deleted, end, membersHeld);
    }
  }

  /** Deletes the groups a failed run left behind, as far as it can. */
  private void releaseLeftovers(KeyGroup[] groups) {
    for (KeyGroup g : groups) {
      if (g != null) {
        try {
          g.delete();
        } catch (IOException | RuntimeException e) {
          out.printf("could not delete group %s after the failure: %s%n", g.id(), e);
        }
      }
    }
  }

  private interface GroupAction {
    void run(int group) throws IOException;
  }

  /** Runs {@code action} for groups 0..count-1 on the client threads; returns the latencies (microseconds). */
  private Histogram inParallel(String what, int count, GroupAction action) throws Exception {
    ConcurrentHistogram latencies = new ConcurrentHistogram(3);
    ExecutorService pool = Executors.newFixedThreadPool(s.clients());
    AtomicBoolean failed = new AtomicBoolean();
    long start = System.nanoTime();
    try (ProgressBar bar = new ProgressBar(out, () -> (double) latencies.getTotalCount() / count,
        () -> String.format("%s %d groups of %d, %d clients", what, count, s.k(), s.clients()))) {
      List<Future<?>> running = new ArrayList<>();
      for (int c = 0; c < s.clients(); c++) {
        int first = c;
        running.add(pool.submit(() -> {
          for (int g = first; g < count && !failed.get(); g += s.clients()) {
            long t0 = System.nanoTime();
            try {
              action.run(g);
            } catch (IOException | RuntimeException e) {
              failed.set(true); // the others finish the call in hand, so every group created is recorded
              throw e;
            }
            latencies.recordValue(Math.max(1, (System.nanoTime() - t0) / 1_000));
          }
          return null;
        }));
      }
      ExecutionException failure = null;
      for (Future<?> f : running) { // all of them: interrupting a create could leave its group unrecorded
        try {
          f.get();
        } catch (ExecutionException e) {
          failure = failure == null ? e : failure;
        }
      }
      if (failure != null) {
        throw failure;
      }
    } finally {
      pool.shutdown();
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    out.printf("%d %ss in %.1f s: %.1f per second%n", count, what, seconds, count / seconds);
    return latencies;
  }

  private void report(String what, Histogram h) {
    out.printf("  %-6s p50 %7.1f ms  p99 %7.1f ms  max %7.1f ms%n", what, h.getValueAtPercentile(50) / 1e3,
        h.getValueAtPercentile(99) / 1e3, h.getMaxValue() / 1e3);
  }

  /** Counts the state tables until they are back to {@code baseline} or the wait is over; returns the last count. */
  private long[] awaitBaseline(long[] baseline) throws IOException, InterruptedException {
    long start = System.nanoTime();
    long[] now = stateRows();
    long deadline = start + TimeUnit.MILLISECONDS.toNanos(s.tombstoneWaitMillis());
    while ((now[0] > baseline[0] || now[1] > baseline[1]) && System.nanoTime() < deadline) {
      TimeUnit.MILLISECONDS.sleep(Math.min(5_000, s.tombstoneWaitMillis()));
      now = stateRows();
    }
    boolean back = now[0] <= baseline[0] && now[1] <= baseline[1];
    out.printf("state tables %.0f s later: %d groups rows, %d owners rows (%s)%n",
        (System.nanoTime() - start) / 1e9, now[0], now[1], back ? "back to the baseline"
            : "NOT back to the baseline of " + baseline[0] + " and " + baseline[1]);
    return now;
  }

  private void large(GStoreClient client, List<Integer> shuffled, int rows, int round) throws IOException {
    List<byte[]> members = new ArrayList<>();
    for (int i = 0; i < s.largeK(); i++) {
      members.add(Players.row(shuffled.get((round * s.largeK() + i) % rows), rows));
    }
    long datagrams0 = datagramsSent == null ? 0 : datagramsSent.getAsLong();
    long t0 = System.nanoTime();
    KeyGroup g = client.createGroup(GroupSpec.builder().members(TABLE, members).atomic().build());
    long t1 = System.nanoTime();
    long datagrams1 = datagramsSent == null ? 0 : datagramsSent.getAsLong();
    g.delete();
    long t2 = System.nanoTime();
    long datagrams2 = datagramsSent == null ? 0 : datagramsSent.getAsLong();
    out.printf("group of %d rows: create %.1f ms, delete %.1f ms%s%n", members.size(), (t1 - t0) / 1e6,
        (t2 - t1) / 1e6, datagramsSent == null ? "" : String.format("; datagrams %d to create, %d to delete",
            datagrams1 - datagrams0, datagrams2 - datagrams1));
  }

  /**
   * Creates the table and writes its rows. A row some group holds (another application's, or one left by a run
   * that was killed) is left alone and counted: the creates that want it fail, and the run with them.
   */
  private void prepare(int rows) throws IOException {
    GStoreTables.ensureServed(connection, TableDescriptorBuilder.newBuilder(TABLE)
        .setColumnFamily(ColumnFamilyDescriptorBuilder.of(Players.CF)).build(), Players.splits());
    AtomicLong held = new AtomicLong();
    BufferedMutatorParams params = new BufferedMutatorParams(TABLE).listener((e, mutator) -> {
      for (int i = 0; i < e.getNumExceptions(); i++) {
        if (!grouped(e.getCause(i))) {
          throw e;
        }
      }
      held.addAndGet(e.getNumExceptions());
    });
    try (BufferedMutator mutator = connection.getBufferedMutator(params)) {
      for (int i = 0; i < rows; i++) {
        mutator.mutate(new Put(Players.row(i, rows)).addColumn(Players.CF, Players.SCORE, Bytes.toBytes(0)));
      }
    }
    if (held.get() > 0) {
      out.printf("%d rows of %s are in groups that are not this run's; creates that want them will fail%n",
          held.get(), TABLE);
    }
  }

  private static boolean grouped(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (RowGroupedException.is(t)) {
        return true;
      }
    }
    return false;
  }

  /** Rows in {@code gstore:groups} and {@code gstore:owners}. */
  private long[] stateRows() throws IOException {
    return new long[] {GStoreTables.rowCount(connection, GROUPS), GStoreTables.rowCount(connection, OWNERS)};
  }

  private static long usedHeap() {
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    Runtime r = Runtime.getRuntime();
    return r.totalMemory() - r.freeMemory();
  }
}
