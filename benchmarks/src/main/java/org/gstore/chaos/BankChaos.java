package org.gstore.chaos;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Random;
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
import org.gstore.bench.GStoreTables;
import org.gstore.client.GStoreClient;
import org.gstore.client.GroupNotFoundException;
import org.gstore.client.GroupSpec;
import org.gstore.client.KeyGroup;
import org.gstore.client.TransactionConflictException;
import org.gstore.testing.process.ProcessCluster;

/**
 * One chaos run: set up the bank (a table of its own, one group per set of accounts), run transfer workers and an
 * auditor while {@link Killer} kills processes, then stop the load, make sure every process is back, delete the
 * groups and check the ledger ({@link LedgerCheck}). Prints one line:
 * {@code chaos kills=K commits=C lost=L duplicated=D invariant=ok|broken}, where {@code duplicated} counts accounts
 * whose balance disagrees with the ledgers (a transfer applied other than exactly once).
 */
public final class BankChaos {
  /**
   * What to run. The load runs for {@code length} and on until the schedule has killed {@code minKills} processes
   * (a restart that waits for the cluster to serve again can take long on a loaded machine), but no longer than
   * {@code length} plus {@link #LONGEST_FAULT} per kill still missing.
   */
  public record Settings(Duration length, Duration killEvery, Duration down, int minKills, int groups, int accounts,
      int workers, boolean killMaster, long seed) {}

  /** How long one fault (kill, down time, restart, cluster serving again) may take before a run gives up on it. */
  static final Duration LONGEST_FAULT = Duration.ofMinutes(3);

  private final Connection connection;
  private final ProcessCluster cluster;
  private final Settings settings;
  private final PrintStream out;
  private final Bank bank;
  private final Queue<Bank.Transfer> acknowledged = new ConcurrentLinkedQueue<>();
  private final AtomicLong uncertain = new AtomicLong();
  private final AtomicLong conflicts = new AtomicLong();
  private final AtomicLong audits = new AtomicLong();
  private final AtomicLong auditFailures = new AtomicLong();
  private volatile boolean stopping;

  public BankChaos(Connection connection, ProcessCluster cluster, Settings settings, PrintStream out) {
    this.connection = connection;
    this.cluster = cluster;
    this.settings = settings;
    this.out = out;
    this.bank = new Bank(TableName.valueOf("chaos_bank_" + System.currentTimeMillis() / 1000), settings.groups(),
        settings.accounts(), 1_000);
  }

  /** What a run found; {@code ok} when every invariant held and the fault schedule ran as planned. */
  public record Outcome(int kills, long commits, long lost, long duplicated, boolean ok) {}

  /** Runs, and prints the one-line verdict last. */
  public Outcome run() throws Exception {
    try (GStoreClient client = GStoreClient.create(connection)) {
      List<KeyGroup> groups = setUp(client);
      Killer killer = new Killer(cluster, connection, bank, settings.killEvery(), settings.down(),
          settings.killMaster(), settings.minKills(), settings.seed(), out);
      List<Thread> threads = new ArrayList<>();
      for (int w = 0; w < settings.workers(); w++) {
        int worker = w;
        threads.add(started("chaos-transfers-" + w, () -> transfers(worker, groups)));
      }
      threads.add(started("chaos-auditor", () -> audits(groups)));
      Thread killing = started("chaos-killer", killer);
      out.printf("chaos: %d groups of %d accounts in %s, %d transfer workers and an auditor for %d s, a kill every"
          + " %d s%n", settings.groups(), settings.accounts(), bank.table(), settings.workers(),
          settings.length().toSeconds(), settings.killEvery().toSeconds());
      killing.join(settings.length().toMillis());
      killer.stop();
      int missing = Math.max(0, settings.minKills() - killer.kills());
      killing.join(settings.killEvery().plus(LONGEST_FAULT).multipliedBy(missing + 1L).toMillis());
      if (killing.isAlive()) {
        out.printf("chaos: %d of %d kills in time; ending the fault schedule%n", killer.kills(), settings.minKills());
        killer.abort();
      }
      killing.join(); // it restarts what it killed before it returns
      stopping = true;
      for (Thread t : threads) {
        t.join(Duration.ofMinutes(3).toMillis());
        if (t.isAlive()) {
          out.println("chaos: " + t.getName() + " still blocked after 3 minutes; interrupting it");
          t.interrupt();
        }
      }
      cluster.start(); // brings back anything still down (no-op if all serve)
      deleteGroups(groups);
      LedgerCheck.Result check = LedgerCheck.run(connection, bank, acknowledged);
      check.details().stream().limit(20).forEach(d -> out.println("chaos: " + d));
      boolean ok = check.ok() && auditFailures.get() == 0 && killer.failure() == null
          && killer.kills() >= settings.minKills();
      out.printf("chaos: %d transfers acknowledged, %d applied in all, %d of unknown outcome (a call failed"
          + " during a crash), %d gave up on conflicts; %d audits, %d failed%n", acknowledged.size(),
          check.transfersApplied(), uncertain.get(), conflicts.get(), audits.get(), auditFailures.get());
      out.printf("chaos kills=%d commits=%d lost=%d duplicated=%d invariant=%s%n", killer.kills(),
          acknowledged.size(), check.lost(), check.accountsOff(), ok ? "ok" : "broken");
      return new Outcome(killer.kills(), acknowledged.size(), check.lost(), check.accountsOff(), ok);
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
    for (long seq = 0; !stopping && !Thread.currentThread().isInterrupted(); seq++) {
      int g = random.nextInt(groups.size());
      int from = random.nextInt(bank.accounts());
      int to = (from + 1 + random.nextInt(bank.accounts() - 1)) % bank.accounts();
      Bank.Transfer t = new Bank.Transfer("w" + worker + "-" + seq, bank.row(g, from), bank.row(g, to),
          1 + random.nextInt(50));
      try {
        if (groups.get(g).transact(txn -> bank.transfer(txn, t))) {
          acknowledged.add(t);
        }
      } catch (TransactionConflictException e) {
        conflicts.incrementAndGet(); // not applied
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
