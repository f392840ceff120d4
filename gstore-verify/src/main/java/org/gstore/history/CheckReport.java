package org.gstore.history;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * What a check found: counts by anomaly kind, a few instances of each to read, and the verdict, printed as one line
 * ({@link #line}) that a run's log and a script can both read.
 */
public final class CheckReport {
  /** The consistency model a history is checked against. */
  public enum Consistency {
    SERIALIZABLE("serializable"),
    /** Serializable in an order that also respects real time: what completed before another began comes first. */
    STRICT_SERIALIZABLE("strict-serializable");

    final String label;

    Consistency(String label) {
      this.label = label;
    }

    public static Consistency parse(String s) {
      for (Consistency c : values()) {
        if (c.label.equals(s)) {
          return c;
        }
      }
      throw new IllegalArgumentException("consistency must be serializable or strict-serializable, not " + s);
    }
  }

  /** How many instances of each kind are kept to print. */
  private static final int EXAMPLES = 5;

  private final Consistency consistency;
  private final long ops;
  private final long txns;
  private final long ok;
  private final long fail;
  private final long info;
  private final Map<Anomaly.Kind, Integer> counts = new EnumMap<>(Anomaly.Kind.class);
  private final List<Anomaly> examples = new ArrayList<>();
  private final List<String> notes = new ArrayList<>();
  private boolean realtimeOnly = true;

  /**
   * @param ops operations invoked
   * @param txns transactions and plain reads checked: those that completed {@code ok} or {@code info}
   */
  CheckReport(Consistency consistency, long ops, long txns, long ok, long fail, long info) {
    this.consistency = consistency;
    this.ops = ops;
    this.txns = txns;
    this.ok = ok;
    this.fail = fail;
    this.info = info;
    for (Anomaly.Kind k : Anomaly.Kind.values()) {
      counts.put(k, 0);
    }
  }

  void found(Anomaly a) {
    int seen = counts.merge(a.kind(), 1, Integer::sum);
    realtimeOnly &= a.realtime();
    if (seen <= EXAMPLES) {
      examples.add(a);
    }
  }

  /** Something a reader of the verdict should know: a search cut short. */
  void note(String note) {
    notes.add(note);
  }

  /** What a reader of the verdict should know besides the anomalies (a search cut short); usually none. */
  public List<String> notes() {
    return List.copyOf(notes);
  }

  /** Transactions and plain reads checked (completed {@code ok} or {@code info}). */
  public long txns() {
    return txns;
  }

  public int count(String label) {
    for (Anomaly.Kind k : Anomaly.Kind.values()) {
      if (k.label.equals(label)) {
        return counts.get(k);
      }
    }
    throw new IllegalArgumentException("no anomaly kind " + label);
  }

  /** Whether the history holds up under the consistency it was checked against. */
  public boolean valid() {
    return counts.values().stream().allMatch(n -> n == 0);
  }

  /**
   * {@code strict-serializable} or {@code serializable} (the strongest that holds; the first only when checked
   * for it), or {@code anomalies}.
   */
  public String verdict() {
    if (valid()) {
      return consistency.label;
    }
    return realtimeOnly ? Consistency.SERIALIZABLE.label : "anomalies";
  }

  /** The line every check prints. */
  public String line() {
    StringBuilder sb = new StringBuilder("history ops=").append(ops).append(" txns=").append(txns).append(" ok=")
        .append(ok).append(" fail=").append(fail).append(" info=").append(info);
    for (Anomaly.Kind k : Anomaly.Kind.values()) {
      sb.append(' ').append(k.label).append('=').append(counts.get(k));
    }
    return sb.append(" verdict=").append(verdict()).toString();
  }

  /** A few instances of each kind found, each with the transactions (history indexes) that make it. */
  public List<String> examples() {
    return examples.stream().map(Anomaly::toString).toList();
  }
}
