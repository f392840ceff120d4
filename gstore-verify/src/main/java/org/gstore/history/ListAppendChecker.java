package org.gstore.history;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Checks a list-append history for the anomalies of {@link Anomaly.Kind}, as Elle does: each key's version order
 * is its longest read (every other read must be a prefix of it), from which come the dependencies between the
 * transactions that happened ({@code ok} ones, and {@code info} ones whose appends were read): write-write between
 * the appenders of consecutive elements, write-read from the appender of a read's last element to the reader, and
 * read-write from a reader to the appender of the element after its read. Cycles among those are {@code G0}
 * (write-write only), {@code G1c} (with write-read), {@code G-single} (one read-write) and {@code G2} (more);
 * with real-time edges too, a cycle that needs them breaks strict serializability only.
 *
 * <p>Reads are taken as the transaction saw the key before appending to it itself ("external" reads); a read after
 * its own appends must show them ({@code internal}). Plain reads take part in every dependency, but in real time
 * only after the rows they read were released: a plain read may be stale while its row is grouped, as G-Store
 * documents, but one that began after a group's delete returned follows every transaction of that group (the
 * history's {@code group} fields say which), since the delete lands all of them in HBase before it releases the rows.
 */
public final class ListAppendChecker {
  private ListAppendChecker() {}

  /** A read of one key by one transaction; external when the transaction had not appended to the key before it. */
  private record Read(int txn, long[] value, boolean external) {}

  /** Everything about one key. */
  private static final class KeyState {
    final Map<Long, Integer> writer = new HashMap<>();
    final Map<Long, Integer> failedWriter = new HashMap<>();
    /** Each writer's last append to the key: a read ending elsewhere in its appends saw it half-way. */
    final Map<Integer, Long> lastAppendOf = new HashMap<>();
    final List<Read> reads = new ArrayList<>();
    long[] order = new long[0];
    /** Where in the history the last transaction (not a plain read) that read the key was invoked. */
    long lastTxnReadInvoked = Long.MIN_VALUE;
    /** Where in the history the last plain read of the key was invoked. */
    long lastPlainReadInvoked = Long.MIN_VALUE;
  }

  public static CheckReport check(List<Op> history, CheckReport.Consistency consistency)
      throws HistoryFormatException {
    long ops = history.stream().filter(o -> o.type() == Op.Type.INVOKE).count();
    List<Txn> txns = Txn.pair(history);
    if (txns.stream().noneMatch(t -> t.type() == Op.Type.OK)) {
      throw new HistoryFormatException("nothing to check: no transaction or plain read of the history completed ok ("
          + history.size() + " operations)");
    }
    long checked = txns.stream().filter(t -> t.type() != Op.Type.FAIL).count();
    CheckReport report = new CheckReport(consistency, ops, checked, count(history, Op.Type.OK),
        count(history, Op.Type.FAIL), count(history, Op.Type.INFO));
    Map<String, KeyState> keys = new HashMap<>();
    recordAppends(txns, keys);
    recordReads(txns, keys, report);
    boolean strict = consistency == CheckReport.Consistency.STRICT_SERIALIZABLE;
    long[] releasedAt = releasedAt(history, txns);
    for (Map.Entry<String, KeyState> e : keys.entrySet()) {
      orderVersions(e.getKey(), e.getValue(), txns, releasedAt, strict, report);
    }
    boolean[] happened = happened(txns, keys);
    DependencyGraph graph = new DependencyGraph(txns.size());
    for (Map.Entry<String, KeyState> e : keys.entrySet()) {
      addDataDependencies(e.getKey(), e.getValue(), happened, graph);
    }
    CycleSearch cycles = new CycleSearch(graph, txns, report);
    cycles.dataCycles();
    if (consistency == CheckReport.Consistency.STRICT_SERIALIZABLE) {
      addRealTimeOrder(history, txns, happened, graph);
      addReleasedRowsOrder(txns, keys, happened, releasedAt, graph);
      cycles.realTimeCycles();
    }
    return report;
  }

  private static long count(List<Op> history, Op.Type type) {
    return history.stream().filter(o -> o.type() == type).count();
  }

  private static void recordAppends(List<Txn> txns, Map<String, KeyState> keys) throws HistoryFormatException {
    for (Txn t : txns) {
      for (Mop m : t.mops()) {
        if (m.isRead()) {
          continue;
        }
        KeyState k = keys.computeIfAbsent(m.key(), x -> new KeyState());
        Integer earlier = k.writer.containsKey(m.appended()) ? k.writer.get(m.appended())
            : k.failedWriter.get(m.appended());
        if (earlier != null) {
          throw HistoryFormatException.atIndex(t.invokeIndex(), m.appended() + " is appended to " + m.key()
              + " twice (also at index " + txns.get(earlier).invokeIndex() + "); appends must be unique");
        }
        (t.type() == Op.Type.FAIL ? k.failedWriter : k.writer).put(m.appended(), t.id());
        k.lastAppendOf.put(t.id(), m.appended());
      }
    }
  }

  /** Registers every read of the transactions that happened, checking each against the transaction's own appends. */
  private static void recordReads(List<Txn> txns, Map<String, KeyState> keys, CheckReport report) {
    for (Txn t : txns) {
      if (t.type() != Op.Type.OK) {
        continue; // a failed or unknown transaction's reads are not known
      }
      Map<String, long[]> seen = new HashMap<>(); // what this transaction knows each key holds
      Map<String, List<Long>> ownSince = new HashMap<>(); // its appends since it last read the key
      boolean reportedInternal = false;
      for (Mop m : t.mops()) {
        List<Long> own = ownSince.computeIfAbsent(m.key(), x -> new ArrayList<>());
        if (!m.isRead()) {
          own.add(m.appended());
          continue;
        }
        if (m.read() == null) {
          continue;
        }
        KeyState k = keys.computeIfAbsent(m.key(), x -> new KeyState());
        boolean external = !seen.containsKey(m.key()) && own.isEmpty();
        if (!reportedInternal && !seesOwn(seen.get(m.key()), own, m.read())) {
          report.found(new Anomaly(Anomaly.Kind.INTERNAL, false, t.describe() + " read " + m.key() + " as "
              + Arrays.toString(m.read()) + ", not what it had read and appended before"));
          reportedInternal = true;
        }
        seen.put(m.key(), m.read());
        own.clear();
        k.reads.add(new Read(t.id(), m.read(), external));
        if (t.plain()) {
          k.lastPlainReadInvoked = Math.max(k.lastPlainReadInvoked, t.invokeIndex());
        } else {
          k.lastTxnReadInvoked = Math.max(k.lastTxnReadInvoked, t.invokeIndex());
        }
        duplicates(m.key(), m.read(), t, report);
      }
    }
  }

  /** Whether a read shows the transaction's earlier read of the key (if any) followed by its appends since. */
  private static boolean seesOwn(long[] before, List<Long> own, long[] read) {
    int prefix = read.length - own.size();
    if (prefix < 0 || before != null && (prefix != before.length
        || !Arrays.equals(read, 0, prefix, before, 0, prefix))) {
      return false;
    }
    for (int i = 0; i < own.size(); i++) {
      if (read[prefix + i] != own.get(i)) {
        return false;
      }
    }
    return true;
  }

  private static void duplicates(String key, long[] read, Txn t, CheckReport report) {
    Set<Long> elements = new HashSet<>();
    for (long v : read) {
      if (!elements.add(v)) {
        report.found(new Anomaly(Anomaly.Kind.DUPLICATED, false, t.describe() + " read " + v + " twice in " + key));
        return;
      }
    }
  }

  /**
   * The key's version order, its longest read; every read must be a prefix of it, end on an append that happened
   * and was complete (G1a, G1b); an acknowledged append no read shows is lost if reads began after it completed.
   */
  private static void orderVersions(String key, KeyState k, List<Txn> txns, long[] releasedAt, boolean strict,
      CheckReport report) {
    Read longest = null;
    for (Read r : k.reads) {
      if (longest == null || r.value().length > longest.value().length) {
        longest = r;
      }
    }
    k.order = longest == null ? new long[0] : longest.value();
    Set<Long> observed = new HashSet<>();
    boolean incompatible = false;
    for (Read r : k.reads) {
      long[] v = r.value();
      if (!incompatible && !Arrays.equals(v, 0, v.length, k.order, 0, v.length)) {
        report.found(new Anomaly(Anomaly.Kind.INCOMPATIBLE_ORDER, false, key + " read as "
            + Arrays.toString(v) + " by " + txns.get(r.txn()).describe() + " and as " + Arrays.toString(k.order)
            + " by " + txns.get(longest.txn()).describe() + ": neither is a prefix of the other"));
        incompatible = true;
      }
      for (long e : v) {
        observed.add(e);
      }
      if (v.length > 0) {
        readsAComplete(key, k, r, txns, report);
      }
    }
    if (!strict) {
      return; // serializable: an append no read shows may be ordered after every read
    }
    for (Map.Entry<Long, Integer> w : k.writer.entrySet()) {
      Txn t = txns.get(w.getValue());
      if (t.type() == Op.Type.OK && !observed.contains(w.getKey()) && (k.lastTxnReadInvoked > t.completeIndex()
          || k.lastPlainReadInvoked > releasedAt[t.id()])) {
        report.found(new Anomaly(Anomaly.Kind.LOST, true, t.describe() + " appended " + w.getKey() + " to " + key
            + ", acknowledged; no read shows it, though reads of " + key + " began after it completed"
            + (k.lastPlainReadInvoked > releasedAt[t.id()] ? " and its group's delete returned" : "")));
      }
    }
  }

  /** G1a and G1b for a read's last element (the earlier ones are the last elements of other, shorter states). */
  private static void readsAComplete(String key, KeyState k, Read r, List<Txn> txns, CheckReport report) {
    long[] v = r.value();
    Txn reader = txns.get(r.txn());
    for (long e : v) {
      Integer failed = k.failedWriter.get(e);
      if (failed != null || !k.writer.containsKey(e)) {
        report.found(new Anomaly(Anomaly.Kind.G1A, false, reader.describe() + " read " + e + " in " + key + ", "
            + (failed != null ? "appended by " + txns.get(failed).describe() : "which no transaction appended")));
        return;
      }
    }
    int w = k.writer.get(v[v.length - 1]);
    if (w != r.txn() && k.lastAppendOf.get(w) != v[v.length - 1]) {
      report.found(new Anomaly(Anomaly.Kind.G1B, false, reader.describe() + " read " + key + " as "
          + Arrays.toString(v) + ", in the middle of the appends of " + txns.get(w).describe()));
    }
  }

  /** The transactions that took effect: ok ones, and info ones whose appends someone read. */
  private static boolean[] happened(List<Txn> txns, Map<String, KeyState> keys) {
    boolean[] happened = new boolean[txns.size()];
    for (Txn t : txns) {
      happened[t.id()] = t.type() == Op.Type.OK;
    }
    for (KeyState k : keys.values()) {
      for (long e : k.order) {
        Integer w = k.writer.get(e);
        if (w != null) {
          happened[w] = true;
        }
      }
    }
    return happened;
  }

  private static void addDataDependencies(String key, KeyState k, boolean[] happened, DependencyGraph graph) {
    long[] order = k.order;
    if (Arrays.stream(order).distinct().count() != order.length) {
      return; // a read with an element twice (duplicated) orders nothing
    }
    for (int i = 0; i + 1 < order.length; i++) {
      Integer a = k.writer.get(order[i]);
      Integer b = k.writer.get(order[i + 1]);
      if (a != null && b != null) {
        graph.add(a, b, DependencyGraph.WW, key);
      }
    }
    for (Read r : k.reads) {
      if (!r.external() || !happened[r.txn()]) {
        continue;
      }
      long[] v = r.value();
      Integer w = v.length > 0 ? k.writer.get(v[v.length - 1]) : null;
      if (w != null) {
        graph.add(w, r.txn(), DependencyGraph.WR, key);
      }
      if (v.length < order.length && Arrays.equals(v, 0, v.length, order, 0, v.length)) {
        Integer next = k.writer.get(order[v.length]);
        if (next != null && !next.equals(w)) { // the same writer: a read of its intermediate state, G1b
          graph.add(r.txn(), next, DependencyGraph.RW, key);
        }
      }
    }
  }

  /**
   * For each transaction, where in the history the first delete of its group that returned ok completed
   * ({@code Long.MAX_VALUE}: none did, or it ran in no group the history names).
   */
  private static long[] releasedAt(List<Op> history, List<Txn> txns) {
    Map<String, Long> deleted = new HashMap<>();
    for (Op op : history) {
      if (op.f().equals("delete") && op.type() == Op.Type.OK && op.group() != null) {
        deleted.putIfAbsent(op.group(), op.index());
      }
    }
    long[] at = new long[txns.size()];
    for (Txn t : txns) {
      Long d = t.plain() || t.group() == null ? null : deleted.get(t.group());
      at[t.id()] = d == null ? Long.MAX_VALUE : d;
    }
    return at;
  }

  /**
   * Real-time order between a group's transactions and the plain reads of its rows that began after its delete
   * returned: each such read follows every transaction of the group that happened and appended to the key it read.
   */
  private static void addReleasedRowsOrder(List<Txn> txns, Map<String, KeyState> keys, boolean[] happened,
      long[] releasedAt, DependencyGraph graph) {
    for (Txn reader : txns) {
      if (!reader.plain() || reader.type() != Op.Type.OK) {
        continue;
      }
      for (Mop m : reader.mops()) {
        KeyState k = keys.get(m.key());
        if (k == null) {
          continue;
        }
        for (int w : new HashSet<>(k.writer.values())) { // a writer of several elements once
          if (happened[w] && releasedAt[w] < reader.invokeIndex()) {
            graph.add(w, reader.id(), DependencyGraph.RT, null);
          }
        }
      }
    }
  }

  /**
   * Real-time order among transactions that happened (plain reads aside): one that completed before another was
   * invoked precedes it. Only the latest completed transactions (the frontier) are linked to each invocation; the
   * rest follow by transitivity, so the edges grow with the history times the concurrency, not its square.
   */
  private static void addRealTimeOrder(List<Op> history, List<Txn> txns, boolean[] happened,
      DependencyGraph graph) {
    Map<Long, Txn> byInvoke = new HashMap<>();
    Map<Long, Txn> byCompletion = new HashMap<>();
    for (Txn t : txns) {
      if (!t.plain() && happened[t.id()]) {
        byInvoke.put(t.invokeIndex(), t);
        if (t.type() == Op.Type.OK) {
          byCompletion.put(t.completeIndex(), t);
        }
      }
    }
    Set<Integer> frontier = new HashSet<>();
    Map<Integer, int[]> predecessors = new HashMap<>();
    for (Op op : history) {
      Txn invoked = op.type() == Op.Type.INVOKE ? byInvoke.get(op.index()) : null;
      if (invoked != null) {
        int[] preds = frontier.stream().mapToInt(Integer::intValue).toArray();
        for (int p : preds) {
          graph.add(p, invoked.id(), DependencyGraph.RT, null);
        }
        predecessors.put(invoked.id(), preds);
      }
      Txn completed = op.type() == Op.Type.OK ? byCompletion.get(op.index()) : null;
      if (completed != null) {
        for (int p : predecessors.getOrDefault(completed.id(), new int[0])) {
          frontier.remove(p);
        }
        predecessors.remove(completed.id());
        frontier.add(completed.id());
      }
    }
  }
}
