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
import org.gstore.testing.GStoreTables;

/**
 * Runs workloads against G-Store, plain HBase and Apache Omid side by side, on the same cluster and rows, for each
 * client count, and collects one {@link Recorder.Result} per system, workload, client count and round.
 *
 * <p>First it warms the cluster up until its JIT has settled ({@link Warmup}). Then each point (a workload at a
 * client count) runs its systems interleaved, A, B, A, B..., for {@code repeat} rounds, so that each round compares
 * runs made close together and the spread of the ratios over the rounds shows the noise ({@link Comparison}). Each
 * run also measures the CPU the cluster spent per operation ({@link ClusterCpu}).
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
   * @param warmupRoundMillis how long each workload runs on each system, untimed, in each warm-up round
   * @param warmupCapMillis the longest the warm-up goes on while the JIT has not settled (0: no warm-up)
   * @param repeat how many interleaved rounds each point runs
   * @param profile where to write a flight recording (JFR execution samples, from before the warm-up, with each
   *     measured point's window marked: {@link FlightRecording}), or null for none; it records this JVM, so it
   *     profiles the embedded cluster only
   */
  public record Settings(List<Integer> clients, List<String> workloads, int k, List<Integer> ns, long deltaMillis,
      int rows, boolean contiguous, long warmupMillis, long runMillis, int sharedGroups, int txnSize,
      boolean zipfian, List<BenchSystem> systems, OmidSettings omid, int opsKeys, long warmupRoundMillis,
      long warmupCapMillis, int repeat, Path profile) {
    public Settings {
      if (repeat < 1) {
        throw new IllegalArgumentException("a point runs at least one round, not " + repeat);
      }
    }
  }

  /**
   * What a benchmark run measured: a result per system, workload, client count and round, the ratios of G-Store
   * to each other system with their spread, how the warm-up went, what the CPU figures count, and the CPU the
   * cluster spends a second doing nothing (which each point's CPU per operation includes).
   */
  public record Run(List<Recorder.Result> results, List<Comparison.Ratio> ratios, Warmup.Outcome warmup,
      String cpuMeasure, double idleCpuMillisPerSecond) {}

  /** How long the cluster is watched doing nothing, at most ({@link #idleCpu}). */
  private static final long IDLE_WINDOW_MILLIS = 10_000;

  private final Connection connection;
  private final Settings settings;
  private final ClusterCpu cpu;
  /** The idle cluster's CPU, in ms a second ({@link #idleCpu}); measured after the warm-up. */
  private double idleCpuMillisPerSecond;
  private final boolean embedded;
  private final StateTableWrites stateTables;
  private final ServerCalls serverCalls;
  private final PrintStream out;

  /** A benchmark of the cluster this JVM runs (the embedded one): its CPU is this process's. */
  public Benchmark(Connection connection, Settings settings, PrintStream out) {
    this(connection, settings, true, out);
  }

  /**
   * @param embedded whether the cluster runs in this JVM; if not, its CPU is read from the region servers' info
   *     servers
   */
  public Benchmark(Connection connection, Settings settings, boolean embedded, PrintStream out) {
    this.connection = connection;
    this.settings = settings;
    this.cpu = embedded ? new EmbeddedCpu() : new ServersCpu(connection);
    this.embedded = embedded;
    this.stateTables = new StateTableWrites(connection);
    this.serverCalls = new ServerCalls(connection, embedded);
    this.out = out;
  }

  public Run run() throws Exception {
    preparePlayers();
    if (embedded) {
      switchBalancerOff();
    }
    List<Recorder.Result> results = new ArrayList<>();
    boolean omid = settings.systems().contains(BenchSystem.OMID);
    Path omidDir = omid ? Files.createTempDirectory("gstore-bench-omid-") : null;
    Warmup.Outcome warmup;
    try (GStoreClient gstore = GStoreClient.create(connection);
        OmidTso tso = omid ? startTso(omidDir) : null;
        OmidClient omidClient = omid ? OmidClient.connect(connection, tso, settings.omid()) : null) {
      if (omid) {
        prepareOmidPlayers(omidClient);
      }
      if (embedded) {
        EmbeddedLayout.pin(connection, List.of(Players.TABLE, Players.OMID_TABLE), out);
      }
      BenchSystem.Clients clients = new BenchSystem.Clients(connection, gstore, omidClient);
      List<Workload> workloads = workloads(clients);
      try (FlightRecording recording = FlightRecording.startIfAsked(settings.profile(), out)) {
        warmup = new Warmup(cpu, settings.warmupRoundMillis() > 0 ? settings.warmupCapMillis() : 0, out)
            .run(() -> warmUpRound(workloads));
        out.println("  " + warmup.describe());
        idleCpuMillisPerSecond = idleCpu();
        out.printf(Locale.ROOT, "  the idle cluster: %.1f ms of CPU a second; each point's CPU per op carries that over"
            + " its ops/s (\"idle\" below)%n", idleCpuMillisPerSecond);
        runPoints(workloads, results);
      }
    }
    if (omid) {
      deleteRecursively(omidDir); // kept when the run failed: the TSO's log is there
    }
    List<Comparison.Ratio> ratios = Comparison.of(results);
    out.println("CPU per operation: " + cpu.describe());
    ratios.forEach(r -> out.println("  " + r.describe()));
    return new Run(results, ratios, warmup, cpu.describe(), idleCpuMillisPerSecond);
  }

  /** Every point, its systems interleaved round after round. */
  private void runPoints(List<Workload> workloads, List<Recorder.Result> results) throws Exception {
    for (Workload workload : workloads) {
      for (int c : settings.clients()) {
        for (int round = 1; round <= settings.repeat(); round++) {
          for (BenchSystem system : settings.systems()) {
            if (workload.supports(system)) {
              results.add(runPoint(workload, system, c, round, new Recorder(
                  TimeUnit.MILLISECONDS.toNanos(settings.warmupMillis()),
                  TimeUnit.MILLISECONDS.toNanos(settings.runMillis()))));
            }
          }
        }
      }
    }
  }

  /**
   * The CPU the cluster spends a second doing nothing (HBase's chores, HDFS's and G-Store's heartbeats, the
   * balancer's and the lease checks' threads), over a quiet window after the warm-up. Every point's CPU per
   * operation carries it divided by the point's throughput: little at thousands of operations a second, much more
   * at the tens of lifecycles a second of a {@code group-create} point.
   */
  private double idleCpu() throws Exception {
    long window = Math.min(IDLE_WINDOW_MILLIS, settings.runMillis());
    ClusterCpu.Sample before = cpu.sample(List.of());
    long start = System.nanoTime();
    Thread.sleep(window);
    ClusterCpu.Sample spent = cpu.sample(List.of()).minus(before);
    return spent.cpuNanos() / 1e6 / ((System.nanoTime() - start) / 1e9);
  }

  private Recorder.Result report(Recorder.Result r) {
    out.printf(Locale.ROOT, "  %-6s %-17s %3d clients%s: %8.1f ops/s  p50 %7.2f ms  p99 %7.2f ms  mean %7.2f ms"
        + "  aborts %4.1f%%  CPU %6.2f ms/op (idle %.2f)%n", r.system(), r.workload(), r.clients(),
        settings.repeat() > 1 ? " round " + r.round() : "", r.throughput(), r.p50Ms(), r.p99Ms(), r.meanMs(),
        100 * r.abortRate(), r.cpuMsPerOp(), r.throughput() > 0 ? idleCpuMillisPerSecond / r.throughput() : 0);
    r.phases().forEach((name, ph) -> out.printf(Locale.ROOT, "  %-6s %-17s %3d clients: %-6s x%-5d p50 %7.2f ms"
        + "  p99 %7.2f ms  mean %7.2f ms%n", "", "", r.clients(), name, ph.count(), ph.p50Ms(), ph.p99Ms(),
        ph.meanMs()));
    return r;
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
   * One warm-up round: every workload on every system once, untimed, at the most clients. Without warm-up the
   * first points ran while the JIT was still compiling (the embedded cluster is one JVM with every server in it):
   * measured on 2026-11-26, G-Store's gaming mean per operation at one client was 10.5-11 ms as the run's first
   * point after 2 s of warm-up and 5.7 ms after 20 s, while the systems measured later were warm.
   */
  private void warmUpRound(List<Workload> workloads) throws Exception {
    int clients = Collections.max(settings.clients());
    for (Workload workload : workloads) {
      for (BenchSystem system : settings.systems()) {
        if (workload.supports(system)) {
          runPoint(workload, system, clients, 0, new Recorder(TimeUnit.MILLISECONDS.toNanos(
              settings.warmupRoundMillis()), 0));
        }
      }
    }
  }

  /**
   * Runs one system at one point; the cluster's CPU and G-Store's table writes are sampled when measuring starts and
   * when it ends. Round 0 is a warm-up round: nothing is reported, and a flight recording sees no measured window.
   */
  private Recorder.Result runPoint(Workload workload, BenchSystem system, int clients, int round, Recorder recorder)
      throws Exception {
    boolean measured = round > 0;
    workload.setUp(system);
    List<Thread> clientThreads = new java.util.concurrent.CopyOnWriteArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(clients, task -> {
      Thread t = new Thread(task, "bench-client-" + clientThreads.size());
      clientThreads.add(t);
      return t;
    });
    long start = System.nanoTime();
    double total = recorder.totalMillis();
    long cpuNanos;
    boolean countStateWrites = measured && system == BenchSystem.GSTORE;
    StateTableWrites.Sample stateBefore;
    StateTableWrites.Sample stateAfter;
    ServerCalls.Sample callsBefore;
    ServerCalls.Sample callsAfter;
    long opsBefore;
    long opsAfter;
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
      awaitUntil(recorder.measureFrom(), running);
      // the calls first and last, each with the operations counted then, so the samples between are outside
      callsBefore = countStateWrites ? serverCalls.sample() : ServerCalls.Sample.NONE;
      opsBefore = recorder.ops();
      ClusterCpu.Sample before = cpu.sample(clientThreads); // the window exactly; the few RPCs below are in it
      stateBefore = countStateWrites ? stateTables.sample() : StateTableWrites.Sample.NONE;
      MeasuredPoint window = new MeasuredPoint(label(system) + " " + workload.name() + " " + clients);
      window.begin();
      awaitUntil(recorder.endAt(), running);
      if (measured) {
        window.commit();
      }
      stateAfter = countStateWrites ? stateTables.sample() : StateTableWrites.Sample.NONE;
      cpuNanos = cpu.sample(clientThreads).minus(before).cpuNanos();
      opsAfter = recorder.ops();
      callsAfter = countStateWrites ? serverCalls.sample() : ServerCalls.Sample.NONE;
      for (Future<?> f : running) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
      workload.tearDown(system);
    }
    Recorder.Result result = recorder.result(label(system), workload.name(), clients, round, cpuNanos,
        callsBefore.perOp(callsAfter, opsAfter - opsBefore));
    if (measured) {
      report(result);
    }
    if (countStateWrites) {
      out.printf("%s rows written to G-Store's tables per op: %s%n", " ".repeat(29),
          StateTableWrites.perOperation(stateBefore, stateAfter, result.ops()));
      out.printf("%s calls by G-Store's servers per op: %s%n", " ".repeat(29), result.calls().line());
    }
    return result;
  }

  /** Waits until {@code nanoTime} ({@link System#nanoTime}), or less if every client ended (or one failed). */
  private static void awaitUntil(long nanoTime, List<Future<?>> running) throws Exception {
    for (Future<?> f : running) {
      long left = nanoTime - System.nanoTime();
      if (left <= 0) {
        return;
      }
      try {
        f.get(left, TimeUnit.NANOSECONDS);
      } catch (java.util.concurrent.TimeoutException e) {
        return;
      }
    }
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

  /**
   * The embedded cluster's balancer is switched off once the tables are laid out. A balancer run costs the master
   * seconds of CPU (HBase's stochastic balancer searches for up to 30 s) and the regions it moves a close and an
   * open each, G-Store's groups a handover: whichever system a point measures then pays for it, and the spread of
   * the rounds shows the balancer rather than the systems. In a profile of a 60 s lifecycle point on 2026-11-27,
   * the master's balancer took 12 % of the cluster's CPU samples and the regions it closed 4 %. A cluster given by
   * {@code --conf} is not changed: its operator decides ({@code balance_switch false} in HBase's shell).
   */
  private void switchBalancerOff() throws IOException {
    try (Admin admin = connection.getAdmin()) {
      admin.balancerSwitch(false, true);
    }
    out.println("the embedded cluster's balancer is off for the run (region moves would be measured as noise)");
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
