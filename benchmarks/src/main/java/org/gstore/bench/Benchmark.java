package org.gstore.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.gstore.client.GStoreClient;

/**
 * Runs workloads against G-Store and plain HBase side by side, on the same cluster and rows, for each client
 * count, and collects one {@link Recorder.Result} per system, workload and client count.
 */
public final class Benchmark {
  /**
   * @param clients client counts to run (each a point of the curves)
   * @param ns operations per game for the gaming workload; several run it once per N (the paper's Figure 11
   *     sweep), each labelled {@code gaming-n<N>}
   * @param rows players in the table (at least n * G * K for the paper's scale factor n)
   */
  public record Settings(List<Integer> clients, List<String> workloads, int k, List<Integer> ns, long deltaMillis,
      int rows, boolean contiguous, long warmupMillis, long runMillis, int sharedGroups, int txnSize,
      boolean zipfian) {}

  private final Connection connection;
  private final Settings settings;
  private final PrintStream out;

  public Benchmark(Connection connection, Settings settings, PrintStream out) {
    this.connection = connection;
    this.settings = settings;
    this.out = out;
  }

  public List<Recorder.Result> run() throws Exception {
    preparePlayers();
    List<Recorder.Result> results = new ArrayList<>();
    try (GStoreClient gstore = GStoreClient.create(connection)) {
      BenchSystem.Clients clients = new BenchSystem.Clients(connection, gstore);
      for (Workload workload : workloads(clients)) {
        for (BenchSystem system : BenchSystem.values()) {
          if (!workload.supports(system)) {
            continue;
          }
          for (int c : settings.clients()) {
            Recorder.Result r = runPoint(workload, system, c);
            results.add(r);
            out.printf("  %-6s %-17s %3d clients: %8.1f ops/s  p50 %7.2f ms  p99 %7.2f ms  mean %7.2f ms"
                + "  aborts %4.1f%%%n", r.system(), r.workload(), r.clients(), r.throughput(), r.p50Ms(), r.p99Ms(),
                r.meanMs(), 100 * r.abortRate());
          }
        }
      }
    }
    return results;
  }

  /** The workloads to run, in order; the gaming workload once per N. */
  private List<Workload> workloads(BenchSystem.Clients clients) {
    List<Workload> workloads = new ArrayList<>();
    for (String name : settings.workloads()) {
      switch (name) {
        case "gaming" -> {
          for (int n : settings.ns()) {
            workloads.add(new GamingWorkload(new GamingWorkload.Params(settings.ns().size() == 1 ? "gaming"
                : "gaming-n" + n, settings.k(), n, settings.deltaMillis(), settings.rows(), settings.contiguous()),
                clients));
          }
        }
        case "group-create" -> workloads.add(new GroupCreateWorkload(settings.k(), settings.rows(), clients));
        case "ycsb-a", "ycsb-b", "ycsb-f" -> workloads.add(new YcsbWorkload(YcsbWorkload.Mix.of(name),
            settings.zipfian(), Math.min(settings.k(), 20), settings.sharedGroups(), settings.txnSize(),
            settings.rows(), clients));
        default -> throw new IllegalArgumentException("unknown workload '" + name
            + "' (gaming, group-create, ycsb-a, ycsb-b, ycsb-f)");
      }
    }
    return workloads;
  }

  private Recorder.Result runPoint(Workload workload, BenchSystem system, int clients) throws Exception {
    Recorder recorder = new Recorder(TimeUnit.MILLISECONDS.toNanos(settings.warmupMillis()),
        TimeUnit.MILLISECONDS.toNanos(settings.runMillis()));
    workload.setUp(system);
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    long start = System.nanoTime();
    double total = settings.warmupMillis() + settings.runMillis();
    try (ProgressBar bar = new ProgressBar(out, () -> (System.nanoTime() - start) / 1e6 / total,
        () -> String.format("%s %s, %d clients", system.label, workload.name(), clients))) {
      List<Future<?>> running = new ArrayList<>();
      for (int c = 0; c < clients; c++) {
        int client = c;
        running.add(pool.submit(() -> {
          workload.runClient(system, client, recorder);
          return null;
        }));
      }
      for (Future<?> f : running) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
      workload.tearDown(system);
    }
    return recorder.result(system.label, workload.name(), clients);
  }

  private void preparePlayers() throws IOException {
    GStoreTables.ensureServed(connection, TableDescriptorBuilder.newBuilder(Players.TABLE)
        .setColumnFamily(ColumnFamilyDescriptorBuilder.of(Players.CF)).build(), Players.splits());
    try (BufferedMutator mutator = connection.getBufferedMutator(Players.TABLE)) {
      for (int i = 0; i < settings.rows(); i++) {
        mutator.mutate(new Put(Players.row(i, settings.rows())).addColumn(Players.CF, Players.SCORE,
            Bytes.toBytes(0)));
      }
    }
    out.printf("%d players in %s; K=%d, N=%s, delta=%d ms, %s keys; %d s per point after %d s warm-up%n",
        settings.rows(), Players.TABLE, settings.k(), settings.ns(), settings.deltaMillis(),
        settings.contiguous() ? "contiguous" : "random", settings.runMillis() / 1000, settings.warmupMillis() / 1000);
  }
}
