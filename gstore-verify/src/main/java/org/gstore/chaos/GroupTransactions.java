package org.gstore.chaos;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.util.Bytes;
import org.gstore.client.GroupNotFoundException;
import org.gstore.client.KeyGroup;
import org.gstore.client.NotGroupMemberException;
import org.gstore.client.Transaction;
import org.gstore.client.TransactionConflictException;
import org.gstore.common.CommitRefusedException;
import org.gstore.history.HistoryWriter;
import org.gstore.history.Mop;
import org.gstore.history.Op;

/**
 * The list-append workload's transactions in a group: one attempt each, reading some members and appending to
 * others, recorded in the history as invoked and as completed ({@code ok}, {@code fail} when the leader answered
 * that it did not happen, {@code info} when nobody knows).
 */
final class GroupTransactions {
  /** The longest a hasty client thinks between its reads and its commit (ms). */
  static final int HASTY_THINK_MS = 1_500;

  private final TableName table;
  private final HistoryWriter history;
  private final AtomicLong nextValue;
  private final Consumer<String> appendInvoked;
  private final boolean blindAppends;
  private final Timeline timeline;
  private final AtomicLong ok = new AtomicLong();
  private final AtomicLong sharedOk = new AtomicLong();
  private final AtomicLong conflicts = new AtomicLong();

  /**
   * @param nextValue where unique appended values come from, shared with the plain operations
   * @param appendInvoked told of each key appended to (for the key's rotation)
   * @param blindAppends a planted client bug, for tests: appends overwrite the list unread
   * @param timeline where each commit is counted, by second (null: nowhere)
   */
  GroupTransactions(TableName table, HistoryWriter history, AtomicLong nextValue, Consumer<String> appendInvoked,
      boolean blindAppends, Timeline timeline) {
    this.table = table;
    this.history = history;
    this.nextValue = nextValue;
    this.appendInvoked = appendInvoked;
    this.blindAppends = blindAppends;
    this.timeline = timeline;
  }

  long ok() {
    return ok.get();
  }

  /** Transactions acknowledged to a client other than the one that created the group. */
  long sharedOk() {
    return sharedOk.get();
  }

  /** Transactions the leader refused because a row they read had changed. */
  long conflicts() {
    return conflicts.get();
  }

  /**
   * One transaction, one attempt: it reads some members and appends to others (reading each first); false when its
   * outcome is unknown. {@code hasty}: null for the group's creator; for the team's other clients, whether this
   * one has the short commit deadline, and thinks up to {@value #HASTY_THINK_MS} ms between its reads and its
   * commit (a fault then finds commits in flight, whose outcomes it leaves unknown, rather than reads).
   */
  boolean run(KeyGroup group, List<String> members, long process, Random random, Boolean hasty)
      throws IOException {
    boolean shared = hasty != null;
    List<Mop> invoked = new ArrayList<>();
    for (int i = 0, n = 1 + random.nextInt(3); i < n; i++) {
      String k = members.get(random.nextInt(members.size()));
      invoked.add(Mop.read(k, null));
      if (random.nextBoolean()) {
        appendInvoked.accept(k);
        invoked.add(Mop.append(k, nextValue.getAndIncrement()));
      }
    }
    String name = group.id().name();
    history.record(process, Op.Type.INVOKE, "txn", invoked, name);
    long began = System.nanoTime();
    List<Mop> done;
    try (Transaction txn = group.begin()) {
      try {
        done = runIn(txn, invoked);
      } catch (IOException | RuntimeException e) {
        history.record(process, Op.Type.FAIL, "txn", invoked, name); // nothing was sent to commit
        return true;
      }
      if (Boolean.TRUE.equals(hasty)) {
        try {
          Thread.sleep(random.nextInt(HASTY_THINK_MS));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new InterruptedIOException("interrupted");
        }
      }
      try {
        txn.commit();
      } catch (TransactionConflictException e) {
        conflicts.incrementAndGet();
        history.record(process, Op.Type.FAIL, "txn", invoked, name); // the leader's answer: it did not happen
        answered();
        return true;
      } catch (GroupNotFoundException | NotGroupMemberException | CommitRefusedException e) {
        history.record(process, Op.Type.FAIL, "txn", invoked, name);
        answered();
        return true;
      } catch (IOException | RuntimeException e) {
        history.record(process, Op.Type.INFO, "txn", invoked, name);
        return false;
      }
    }
    history.record(process, Op.Type.OK, "txn", done, name);
    ok.incrementAndGet();
    if (shared) {
      sharedOk.incrementAndGet();
    }
    if (timeline != null) {
      timeline.committed("append", System.nanoTime() - began);
    }
    return true;
  }

  private void answered() {
    if (timeline != null) {
      timeline.answered("append");
    }
  }

  /** The micro-operations, in order, inside the transaction; the reads with what they saw. */
  private List<Mop> runIn(Transaction txn, List<Mop> mops) throws IOException {
    List<Mop> done = new ArrayList<>();
    Map<String, long[]> lists = new HashMap<>();
    for (Mop m : mops) {
      byte[] row = Bytes.toBytes(m.key());
      long[] list = lists.get(m.key());
      if (list == null) {
        list = ListRow.decode(txn.get(table, new Get(row)));
      }
      if (m.isRead()) {
        done.add(Mop.read(m.key(), list));
      } else {
        long[] appended = Arrays.copyOf(blindAppends ? new long[0] : list, (blindAppends ? 0 : list.length) + 1);
        appended[appended.length - 1] = m.appended();
        txn.put(table, ListRow.put(row, appended));
        list = appended;
        done.add(m);
      }
      lists.put(m.key(), list);
    }
    return done;
  }
}
