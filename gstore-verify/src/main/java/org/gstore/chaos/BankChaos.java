package org.gstore.chaos;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.gstore.testing.GStoreTables;
import org.gstore.client.GStoreClient;
import org.gstore.client.GroupNotFoundException;
import org.gstore.client.GroupSpec;
import org.gstore.client.KeyGroup;
import org.gstore.client.TransactionConflictException;
import org.gstore.testing.process.ProcessCluster;

/**
 * One chaos run: set up the bank (a table of its own, one group per set of accounts), run transfer workers and an
 * auditor while {@link FaultSchedule} injects faults (kills, pauses, moves, balancer runs, splits, restarts, master
 * kills), then stop the load, make sure every process is back, delete the groups and check the ledger
 * ({@link LedgerCheck}). Prints one line: {@code chaos kills=K pauses=P moves=M balances=B splits=S restarts=R
 * masters=X commits=C lost=L duplicated=D invariant=ok|broken}, where {@code duplicated} counts accounts whose
 * balance disagrees with the ledgers (a transfer applied other than exactly once). The data is judged even when
 * the schedule failed or a process could not be brought back.
 */
public final class BankChaos {
  /**
   * What to run. The load runs for {@code length} and on until the schedule has injected {@code minFaults} faults
   * and one of each kind in {@code faults} (a restart that waits for the cluster to serve again can take long on a
   * loaded machine), but no longer than {@code length} plus {@link #LONGEST_FAULT} per fault still missing.
   * {@code pause} is how long a paused region server stays stopped (past its ZooKeeper session).
   */
  public record Settings(Duration length, Duration every, Duration down, Duration pause, Set<Fault> faults,
      int minFaults, int groups, int accounts, int workers, long seed, Set<Workload> workloads) {}

  /** How many keys the list-append workload's groups are formed over. */
  static final int APPEND_KEYS = 200;

  /** How many plain HBase clients run beside G-Store's, to set each fault's stalls against. */
  static final int PLAIN_CLIENTS = 4;

  /** How long one fault (kill, down time, restart, cluster serving again) may take before a run gives up on it. */
  static final Duration LONGEST_FAULT = Duration.ofMinutes(3);

  private final Connection connection;
  private final ProcessCluster cluster;
  private final Settings settings;
  private final PrintStream out;
  private final Bank bank;
  /** Which groups each transfer worker uses, and where their rows are. */
  private final TransferWorkers workers;
  private final Queue<Bank.Transfer> acknowledged = new ConcurrentLinkedQueue<>();
  private final AtomicLong uncertain = new AtomicLong();
  private final AtomicLong conflicts = new AtomicLong();
  private final AtomicLong audits = new AtomicLong();
  private final AtomicLong auditFailures = new AtomicLong();
  private volatile boolean stopping;
  /** Where this run's files go: the history, the timeline. */
  private final java.nio.file.Path runDir;
  private final Timeline timeline = new Timeline(System.nanoTime());
  /** The wall clock at the run's start, and its monotonic clock then: steps in the servers' logs carry the first. */
  private final long startMillis = System.currentTimeMillis();
  private final long startNanos = System.nanoTime();

  public BankChaos(Connection connection, ProcessCluster cluster, Settings settings, PrintStream out) {
    this.connection = connection;
    this.cluster = cluster;
    this.settings = settings;
    this.out = out;
    long now = System.currentTimeMillis() / 1000;
    this.bank = new Bank(TableName.valueOf("chaos_bank_" + now), settings.groups(), settings.accounts(), 1_000);
    this.workers = new TransferWorkers(bank, settings.workers());
    this.runDir = cluster.layout().dir().resolve("chaos-" + now);
  }

  /**
   * What a run found; {@code ok} when every invariant held, the history (if the list-append workload ran) is
   * strictly serializable, and the fault schedule ran as planned. {@code stalls}: what each kind of fault cost
   * G-Store's clients and the plain HBase clients beside them, one entry per kind injected.
   */
  public record Outcome(Map<Fault, Integer> faults, long commits, long lost, long duplicated,
      org.gstore.history.CheckReport history, List<Stalls.KindStalls> stalls, boolean ok) {
    public int count(Fault kind) {
      return faults.getOrDefault(kind, 0);
    }

    /** The stalls of {@code kind}; throws if no fault of that kind was injected. */
    public Stalls.KindStalls stalls(Fault kind) {
      return stalls.stream().filter(k -> k.kind() == kind).findFirst()
          .orElseThrow(() -> new IllegalArgumentException("no " + kind.counted() + " in this run"));
    }
  }

  /** Runs, and prints the one-line verdict last. */
  public Outcome run() throws Exception {
    try (GStoreClient client = GStoreClient.create(connection)) {
      List<KeyGroup> groups = setUp(client);
      List<Thread> threads = new ArrayList<>();
      boolean transfers = settings.workloads().contains(Workload.BANK);
      for (int w = 0; transfers && w < settings.workers(); w++) {
        int worker = w;
        threads.add(started(TransferWorkers.name(w), () -> transfers(worker, groups)));
      }
      if (transfers) {
        threads.add(started("chaos-auditor", () -> audits(groups)));
      }
      AppendWorkload append = settings.workloads().contains(Workload.APPEND) ? startAppends() : null;
      PlainLoad plain = new PlainLoad(connection, TableName.valueOf(bank.table().getNameAsString()
          .replace("chaos_bank_", "chaos_plain_")), PLAIN_CLIENTS, settings.seed(), timeline);
      plain.start();
      List<FaultTargets> targets = new ArrayList<>();
      if (transfers || append == null) {
        targets.add(bank);
      }
      if (append != null) {
        targets.add(append);
      }
      FaultSchedule schedule = new FaultSchedule(cluster, connection, bank, targets, settings.every(),
          settings.down(), settings.pause(), settings.faults(), Math.max(settings.minFaults(),
          settings.faults().size()), settings.seed(), out, timeline, () -> workers.placement(connection), plain);
      Thread faulting = started("chaos-faults", schedule);
      out.printf("chaos: %d groups of %d accounts in %s, %d transfer workers and an auditor%s; %d plain HBase"
          + " clients on %s; for %d s, a fault every %d s among %s%n", settings.groups(), settings.accounts(),
          bank.table(), transfers ? settings.workers() : 0, append == null ? "" : "; " + appendClients()
              + " list-append clients forming groups over " + APPEND_KEYS + " keys of " + append.table(),
          PLAIN_CLIENTS, plain.table(), settings.length().toSeconds(), settings.every().toSeconds(),
          settings.faults());
      faulting.join(settings.length().toMillis());
      schedule.stop();
      int missing = Math.max(settings.faults().size(), settings.minFaults()) - schedule.total();
      faulting.join(settings.every().plus(LONGEST_FAULT).multipliedBy(Math.max(0, missing) + 1L).toMillis());
      if (faulting.isAlive()) {
        out.printf("chaos: %d faults in time, not every kind asked for; ending the fault schedule%n",
            schedule.total());
        schedule.abort();
      }
      faulting.join(); // it brings back what it stopped before it returns
      long faultsEnded = System.nanoTime();
      stopping = true;
      plain.stop(Duration.ofMinutes(1));
      for (Thread t : threads) {
        t.join(Duration.ofMinutes(3).toMillis());
        if (t.isAlive()) {
          out.println("chaos: " + t.getName() + " still blocked after 3 minutes; interrupting it");
          t.interrupt();
        }
      }
      boolean healed = bringBack(); // before the list-append clients stop: they finish their groups
      org.gstore.history.CheckReport history = append == null ? null : stopAppends(append);
      healed &= deleteAll(groups);
      LedgerCheck.Result check = LedgerCheck.run(connection, bank, acknowledged);
      check.details().stream().limit(20).forEach(d -> out.println("chaos: " + d));
      boolean ok = check.ok() && healed && auditFailures.get() == 0 && schedule.failure() == null
          && schedule.complete() && (append == null || history != null && history.valid())
          && plain.readsWrong() == 0;
      out.printf("chaos: %d transfers acknowledged, %d applied in all, %d of unknown outcome (a call failed"
          + " during a fault), %d gave up on conflicts; %d audits, %d failed%n", acknowledged.size(),
          check.transfersApplied(), uncertain.get(), conflicts.get(), audits.get(), auditFailures.get());
      Map<Fault, Integer> counts = schedule.counts();
      StringBuilder verdict = new StringBuilder("chaos");
      counts.forEach((kind, n) -> verdict.append(' ').append(kind.counted()).append('=').append(n));
      drawTimeline();
      out.printf("chaos: %d plain HBase writes read back, %d failed during faults, %d read back wrong%n", plain.ok(),
          plain.failed(), plain.readsWrong());
      List<Stalls.KindStalls> stalls = timeline.stalls().summarize(faultsEnded);
      Stalls.table(stalls).forEach(line -> out.println("chaos: " + line));
      stalls.forEach(k -> out.println(k.line()));
      explain(stalls);
      if (history != null) {
        out.println(history.line());
      }
      out.printf("%s commits=%d lost=%d duplicated=%d invariant=%s%n", verdict, acknowledged.size(), check.lost(),
          check.accountsOff(), ok ? "ok" : "broken");
      return new Outcome(counts, acknowledged.size(), check.lost(), check.accountsOff(), history, stalls, ok);
    }
  }

  /**
   * For each kind's longest G-Store stall of a second or more, the steps G-Store's region servers logged during it
   * ({@link StallSteps}): where its seconds went.
   */
  private void explain(List<Stalls.KindStalls> stalls) {
    StallSteps steps;
    try {
      steps = StallSteps.read(cluster.layout().dir(), startMillis);
    } catch (IOException e) {
      out.println("chaos: cannot read the region servers' step lines (" + e + ")");
      return;
    }
    for (Stalls.KindStalls k : stalls) {
      Stalls.Worst worst = k.worst();
      if (worst == null || worst.seconds() < Stalls.STALLED_NANOS / 1e9) {
        continue;
      }
      long from = startMillis + java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(worst.startNanos() - startNanos);
      long to = from + (long) (worst.seconds() * 1000);
      List<StallSteps.Entry> during = steps.during(from, to);
      out.printf(java.util.Locale.ROOT, "chaos: the longest %s stall, %.1f s of %s from +%.1f s: %s%n",
          k.kind().option(), worst.seconds(), worst.client(), (from - startMillis) / 1000.0,
          during.isEmpty() ? "no G-Store step logged during it" : during.size() + " kinds of G-Store step");
      during.forEach(e -> out.println("chaos:   " + e.describe()));
    }
  }

  /**
   * Twice the transfer workers: teams of two to four share each group, and a run needs several teams for groups to
   * form and dissolve often (about one every 2 s per team under faults, measured 2026-12-07) and for faults to find
   * some mid-change.
   */
  private int appendClients() {
    return 2 * settings.workers();
  }

  /** Starts the list-append clients; their history goes beside the cluster's files. */
  private AppendWorkload startAppends() throws IOException {
    java.nio.file.Files.createDirectories(runDir);
    AppendWorkload append = new AppendWorkload(connection, TableName.valueOf(bank.table().getNameAsString()
        .replace("chaos_bank_", "chaos_append_")), APPEND_KEYS, appendClients(), settings.seed(),
        runDir.resolve("history.jsonl"));
    append.timeline(timeline);
    append.start();
    return append;
  }

  /**
   * Stops the list-append clients and checks their history; prints where it is and what it found. Null (the run is
   * broken) if the history cannot be read or checked.
   */
  private org.gstore.history.CheckReport stopAppends(AppendWorkload append) throws InterruptedException {
    try {
      append.stop(Duration.ofMinutes(3));
      org.gstore.history.CheckReport report = append.check();
      out.printf("chaos: the list-append history, %d transactions (%d in groups shared with their creator, %d"
          + " aborted by conflict) and %d group creates acknowledged; %d plain appends, %d refused as grouped: %s%n",
          append.transactionsOk(), append.sharedTransactionsOk(), append.conflicts(), append.createsOk(),
          append.plainAppendsOk(), append.plainAppendsRefused(), append.historyFile());
      report.examples().forEach(e -> out.println("chaos: " + e));
      return report;
    } catch (IOException | org.gstore.history.HistoryFormatException | RuntimeException e) {
      out.println("chaos: the list-append history " + append.historyFile() + " could not be checked: " + e);
      return null;
    }
  }

  /** The run over time; a picture that cannot be drawn (no fonts, say) is reported, and judges nothing. */
  private void drawTimeline() {
    try {
      out.println("chaos: the run over time: " + timeline.write(runDir) + " (and timeline.csv)");
    } catch (IOException | RuntimeException | LinkageError | java.awt.AWTError e) {
      out.println("chaos: could not draw the run over time: " + e);
    }
  }

  private List<KeyGroup> setUp(GStoreClient client) throws IOException {
    GStoreTables.ensureServed(connection, TableDescriptorBuilder.newBuilder(bank.table())
        .setColumnFamily(ColumnFamilyDescriptorBuilder.of(Bank.CF)).build(), Bank.splits());
    try (BufferedMutator mutator = connection.getBufferedMutator(bank.table())) {
      for (int g = 0; g < bank.groups(); g++) {
        for (byte[] row : bank.rows(g)) {
          mutator.mutate(new Put(row).addColumn(Bank.CF, Bank.BALANCE, Bytes.toBytes(bank.initialBalance())));
        }
      }
    }
    List<KeyGroup> groups = new ArrayList<>();
    for (int g = 0; g < bank.groups(); g++) {
      KeyGroup group = client.createGroup(GroupSpec.builder().id(bank.table().getNameAsString() + "-g" + g)
          .leader(bank.table(), bank.row(g, 0)).members(bank.table(), bank.rows(g)).build());
      if (!group.refused().isEmpty()) {
        throw new IOException("group " + g + " could not take every account: " + group.refused());
      }
      groups.add(group);
    }
    return groups;
  }

  private void transfers(int worker, List<KeyGroup> groups) {
    Random random = new Random(settings.seed() * 31 + worker);
    List<Integer> mine = workers.groupsOf(worker);
    for (long seq = 0; !stopping && !Thread.currentThread().isInterrupted(); seq++) {
      int g = mine.get(random.nextInt(mine.size()));
      int from = random.nextInt(bank.accounts());
      int to = (from + 1 + random.nextInt(bank.accounts() - 1)) % bank.accounts();
      Bank.Transfer t = new Bank.Transfer("w" + worker + "-" + seq, bank.row(g, from), bank.row(g, to),
          1 + random.nextInt(50));
      long began = System.nanoTime();
      try {
        if (groups.get(g).transact(txn -> bank.transfer(txn, t))) {
          acknowledged.add(t);
          timeline.committed("bank", System.nanoTime() - began);
        }
      } catch (TransactionConflictException e) {
        conflicts.incrementAndGet(); // not applied
        timeline.answered("bank");
      } catch (IOException | RuntimeException e) {
        uncertain.incrementAndGet(); // applied or not: the ledger will tell
        pause(250);
      }
    }
  }

  private void audits(List<KeyGroup> groups) {
    Random random = new Random(settings.seed());
    while (!stopping && !Thread.currentThread().isInterrupted()) {
      int g = random.nextInt(groups.size());
      try {
        long total = groups.get(g).transact(txn -> {
          long sum = 0;
          for (byte[] row : bank.rows(g)) {
            sum += Bank.balance(txn.get(bank.table(), new Get(row)));
          }
          return sum;
        });
        audits.incrementAndGet();
        if (total != bank.accounts() * bank.initialBalance()) {
          auditFailures.incrementAndGet();
          out.println("chaos: audit of group " + g + " saw " + total);
        }
      } catch (IOException | RuntimeException e) {
        pause(250); // during a crash
      }
      pause(50);
    }
  }

  /** Brings back any process still down; false (reported) if one would not come back. */
  private boolean bringBack() {
    try {
      cluster.start(); // no-op if all serve
      return true;
    } catch (IOException | RuntimeException e) {
      out.println("chaos: could not bring every process back: " + e);
      return false;
    }
  }

  /**
   * Deletes the bank's groups (after which every commit is in HBase); false (reported) if that failed, and the
   * ledger is still checked on what HBase serves.
   */
  private boolean deleteAll(List<KeyGroup> groups) {
    try {
      deleteGroups(groups);
      return true;
    } catch (IOException | RuntimeException e) {
      out.println("chaos: could not delete the groups: " + e);
      return false;
    }
  }

  /** Deletes the groups, retrying through the last restarts; their commits are all in HBase afterwards. */
  private void deleteGroups(List<KeyGroup> groups) throws IOException {
    for (KeyGroup group : groups) {
      long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
      while (true) {
        try {
          group.delete();
          break;
        } catch (GroupNotFoundException deletedBeforeTheAnswerWasLost) {
          break;
        } catch (IOException e) {
          if (System.nanoTime() > deadline) {
            throw new IOException("could not delete " + group.id() + " within 3 minutes", e);
          }
          pause(1_000);
        }
      }
    }
  }

  private static Thread started(String name, Runnable body) {
    Thread t = new Thread(body, name);
    t.start();
    return t;
  }

  private static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
