package org.gstore.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.omid.transaction.TTable;
import org.apache.omid.transaction.Transaction;
import org.apache.omid.transaction.TransactionManager;
import org.gstore.bench.omid.OmidClient;
import org.gstore.bench.omid.OmidSettings;
import org.gstore.bench.omid.OmidTso;
import org.gstore.client.GStoreClient;

/**
 * Runs workloads against G-Store, plain HBase and Apache Omid side by side, on the same cluster and rows, for each
 * client count, and collects one {@link Recorder.Result} per system, workload and client count.
 */
public final class Benchmark {
  /**
   * @param clients client counts to run (each a point of the curves)
   * @param ns operations per game for the gaming workload; several run it once per N (the paper's Figure 11
   *     sweep), each labelled {@code gaming-n<N>}
   * @param rows players in the table (at least n * G * K for the paper's scale factor n)
   * @param systems the systems to run, in order
   * @param omid how Omid runs, when it is among {@code systems}
   * @param opsKeys players each gaming operation touches (1: the paper's workload)
   * @param warmupRoundMillis how long each workload runs on each system, untimed, before the first point (0: not)
   */
  public record Settings(List<Integer> clients, List<String> workloads, int k, List<Integer> ns, long deltaMillis,
      int rows, boolean contiguous, long warmupMillis, long runMillis, int sharedGroups, int txnSize,
      boolean zipfian, List<BenchSystem> systems, OmidSettings omid, int opsKeys, long warmupRoundMillis) {}

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
    boolean omid = settings.systems().contains(BenchSystem.OMID);
    Path omidDir = omid ? Files.createTempDirectory("gstore-bench-omid-") : null;
    try (GStoreClient gstore = GStoreClient.create(connection);
        OmidTso tso = omid ? startTso(omidDir) : null;
        OmidClient omidClient = omid ? OmidClient.connect(connection, tso, settings.omid()) : null) {
      if (omid) {
        prepareOmidPlayers(omidClient);
      }
      BenchSystem.Clients clients = new BenchSystem.Clients(connection, gstore, omidClient);
      List<Workload> workloads = workloads(clients);
      warmUp(workloads);
      for (Workload workload : workloads) {
        for (BenchSystem system : settings.systems()) {
          if (!workload.supports(system)) {
            continue;
          }
          for (int c : settings.clients()) {
            Recorder.Result r = runPoint(workload, system, c, new Recorder(
                TimeUnit.MILLISECONDS.toNanos(settings.warmupMillis()),
                TimeUnit.MILLISECONDS.toNanos(settings.runMillis())));
            results.add(r);
            out.printf("  %-6s %-17s %3d clients: %8.1f ops/s  p50 %7.2f ms  p99 %7.2f ms  mean %7.2f ms"
                + "  aborts %4.1f%%%n", r.system(), r.workload(), r.clients(), r.throughput(), r.p50Ms(), r.p99Ms(),
                r.meanMs(), 100 * r.abortRate());
            r.phases().forEach((name, ph) -> out.printf("  %-6s %-17s %3d clients: %-6s x%-5d p50 %7.2f ms"
                + "  p99 %7.2f ms  mean %7.2f ms%n", "", "", r.clients(), name, ph.count(), ph.p50Ms(), ph.p99Ms(),
                ph.meanMs()));
          }
        }
      }
    }
    if (omid) {
      deleteRecursively(omidDir); // kept when the run failed: the TSO's log is there
    }
    return results;
  }

  private static void deleteRecursively(Path dir) throws IOException {
    try (var paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  /** The workloads to run, in order; the gaming workload once per N. */
  private List<Workload> workloads(BenchSystem.Clients clients) {
    List<Workload> workloads = new ArrayList<>();
    for (String name : settings.workloads()) {
      switch (name) {
        case "gaming" -> {
          for (int n : settings.ns()) {
            String label = (settings.ns().size() == 1 ? "gaming" : "gaming-n" + n)
                + (settings.opsKeys() == 1 ? "" : "-m" + settings.opsKeys());
            workloads.add(new GamingWorkload(new GamingWorkload.Params(label, settings.k(), n,
                settings.deltaMillis(), settings.rows(), settings.contiguous(), settings.opsKeys()), clients));
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

  /**
   * Runs every workload on every system once, untimed, at the most clients, before any point is measured. Without
   * it the first points ran while the JIT was still compiling (the embedded cluster is one JVM with every server
   * in it): measured on 2026-11-26, G-Store's gaming mean per operation at one client was 10.5-11 ms as the
   * run's first point after 2 s of warm-up and 5.7 ms after 20 s, while the systems measured later were warm.
   */
  private void warmUp(List<Workload> workloads) throws Exception {
    if (settings.warmupRoundMillis() <= 0) {
      return;
    }
    int clients = Collections.max(settings.clients());
    for (Workload workload : workloads) {
      for (BenchSystem system : settings.systems()) {
        if (workload.supports(system)) {
          runPoint(workload, system, clients, new Recorder(TimeUnit.MILLISECONDS.toNanos(
              settings.warmupRoundMillis()), 0));
        }
      }
    }
  }

  private Recorder.Result runPoint(Workload workload, BenchSystem system, int clients, Recorder recorder)
      throws Exception {
    workload.setUp(system);
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    long start = System.nanoTime();
    double total = recorder.totalMillis();
    try (ProgressBar bar = new ProgressBar(out, () -> (System.nanoTime() - start) / 1e6 / total,
        () -> String.format("%s %s, %d clients", label(system), workload.name(), clients))) {
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
    return recorder.result(label(system), workload.name(), clients);
  }

  /** The system's name in results: {@code gstore}, {@code hbase}, and {@code omid} or the Omid variant's name. */
  private String label(BenchSystem system) {
    return system == BenchSystem.OMID ? settings.omid().label() : system.name().toLowerCase(Locale.ROOT);
  }

  private OmidTso startTso(Path dir) throws IOException {
    out.printf("Starting an Apache Omid TSO (%s; %s) in its own JVM; its log: %s%n", settings.omid().label(),
        settings.omid(), dir.resolve("tso.log"));
    return OmidTso.start(connection, settings.omid(), dir);
  }

  /**
   * Omid plays on a table of its own with the same players and regions, keeping every version; its players are
   * written through Omid transactions so that Omid's reads see them.
   */
  private void prepareOmidPlayers(OmidClient omid) throws IOException {
    try (Admin admin = connection.getAdmin()) {
      if (!admin.tableExists(Players.OMID_TABLE)) {
        admin.createTable(TableDescriptorBuilder.newBuilder(Players.OMID_TABLE).setColumnFamily(
            ColumnFamilyDescriptorBuilder.newBuilder(Players.CF).setMaxVersions(Integer.MAX_VALUE).build()).build(),
            Players.splits());
      }
    }
    TransactionManager tm = omid.transactions();
    try (TTable table = omid.table(Players.OMID_TABLE)) {
      for (int from = 0; from < settings.rows(); from += 1_000) {
        Transaction tx = tm.begin();
        for (int i = from; i < Math.min(settings.rows(), from + 1_000); i++) {
          table.put(tx, new Put(Players.row(i, settings.rows())).addColumn(Players.CF, Players.SCORE,
              Bytes.toBytes(0)));
        }
        tm.commit(tx);
      }
    } catch (org.apache.omid.transaction.RollbackException e) {
      throw new IOException("could not write the players through Omid: nothing else writes them", e);
    }
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
    out.printf("%d players in %s; K=%d, N=%s, delta=%d ms, %s keys; %d s per point after %d s warm-up,"
        + " after a round of %d s per workload and system%n", settings.rows(), Players.TABLE, settings.k(),
        settings.ns(), settings.deltaMillis(), settings.contiguous() ? "contiguous" : "random",
        settings.runMillis() / 1000, settings.warmupMillis() / 1000, settings.warmupRoundMillis() / 1000);
  }
}
