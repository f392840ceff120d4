package org.gstore.chaos;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * How long each client stopped succeeding at each fault of a chaos run, G-Store's clients beside plain HBase's. A
 * client is one thread of a workload (a bank worker, a list-append client, a plain HBase client). Its stall at a
 * fault is its longest time without success that ended after the fault began and began at most
 * {@link #REACH_NANOS} after it (and before the cluster served again), counted from the fault's start at the
 * earliest (to the end of the run if no success came): the first call after a fault may reach a live server and
 * succeed, and the next one the faulted server. Faults injected together share their clients' stalls. A success is a commit or
 * any other definite answer of the system ({@link Timeline#answered}: an abort by conflict, a group refused, gone,
 * created or deleted): a list-append client whose group its creator deleted fails its transactions by design, and
 * that is no stall. Counted only for a client that succeeded in the {@link #ACTIVE_NANOS} before the fault: one
 * already stalled by an earlier fault is that fault's stall. A G-Store client is unrelated to a fault when none of
 * its groups' rows was on a region server the fault hit, as they were placed when it began. Thread-safe.
 */
public final class Stalls {
  /** A client that succeeded this long before a fault was active when it began. */
  static final long ACTIVE_NANOS = TimeUnit.SECONDS.toNanos(10);
  /**
   * A time without success counts at a fault if it began at most this long after the fault did: long enough for a
   * client's next few calls (its pace is milliseconds) to reach the faulted server, short enough that a later fault's
   * stall is not taken in by a long one (a pause, a decommission) still under way.
   */
  static final long REACH_NANOS = TimeUnit.SECONDS.toNanos(2);
  /** A stall longer than this counts as the client stalling at all (a client's own pace is milliseconds). */
  static final long STALLED_NANOS = TimeUnit.SECONDS.toNanos(1);

  /**
   * One injected fault: its kind, when it began and when the cluster served again ({@code System.nanoTime}), the
   * region servers it hit (rpc ports;
   * empty when it hit none, as a master's kill; null when not known, as a balancer run), and the region servers
   * holding each G-Store client's rows when it began (clients not named are never unrelated).
   */
  public record Injected(Fault kind, long startNanos, long endNanos, Set<Integer> hit,
      Map<String, Set<Integer>> placement) {}

  /** A G-Store client's longest stall at a fault of a kind: whose, from when ({@code System.nanoTime}), seconds. */
  public record Worst(String client, long startNanos, double seconds) {}

  /**
   * What one kind of fault cost, in seconds; NaN where no client of that side was measured. {@code worst} is
   * G-Store's longest stall, null when none was measured.
   */
  public record KindStalls(Fault kind, int count, Summary gstore, Summary hbase, double unrelatedMax, Worst worst) {
    /** {@code stalls fault=KIND count=N gstore-max=S hbase-max=S unrelated-max=S}, as API.md gives it. */
    public String line() {
      return "stalls fault=" + kind.option() + " count=" + count + " gstore-max="
          + seconds(gstore.max()) + " hbase-max=" + seconds(hbase.max()) + " unrelated-max=" + seconds(unrelatedMax);
    }
  }

  /** Stalls of one side over every (fault, active client) pair of a kind. */
  public record Summary(int clients, double max, double median, double stalledShare) {
    static Summary of(List<Double> stalls) {
      if (stalls.isEmpty()) {
        return new Summary(0, Double.NaN, Double.NaN, Double.NaN);
      }
      double[] sorted = stalls.stream().mapToDouble(Double::doubleValue).sorted().toArray();
      double stalled = Arrays.stream(sorted).filter(s -> s > STALLED_NANOS / 1e9).count();
      return new Summary(sorted.length, sorted[sorted.length - 1], sorted[(sorted.length - 1) / 2],
          stalled / sorted.length);
    }
  }

  /** A time without success: from when ({@code System.nanoTime}), how long. */
  private record Gap(long fromNanos, long nanos) {
    double seconds() {
      return nanos / 1e9;
    }
  }

  private final Map<String, Client> clients = new ConcurrentHashMap<>();
  private final List<Injected> faults = new CopyOnWriteArrayList<>();

  /** {@code client} succeeded at {@code nanos}; {@code gstore}: a G-Store client, else a plain HBase one. */
  public void succeeded(String client, boolean gstore, long nanos) {
    clients.computeIfAbsent(client, c -> new Client(gstore)).add(nanos);
  }

  /** A fault was injected. */
  public void fault(Injected fault) {
    faults.add(fault);
  }

  /** Per kind injected, in the enum's order: the stalls up to {@code endNanos}, the run's end. */
  public List<KindStalls> summarize(long endNanos) {
    Map<Fault, List<Injected>> byKind = new EnumMap<>(Fault.class);
    faults.forEach(f -> byKind.computeIfAbsent(f.kind(), k -> new ArrayList<>()).add(f));
    List<KindStalls> out = new ArrayList<>();
    byKind.forEach((kind, injected) -> {
      List<Double> gstore = new ArrayList<>();
      List<Double> hbase = new ArrayList<>();
      double unrelated = Double.NaN;
      Worst worst = null;
      for (Injected f : injected) {
        for (Map.Entry<String, Client> c : clients.entrySet()) {
          Gap gap = c.getValue().stallAt(f.startNanos(), f.endNanos(), endNanos);
          if (gap == null) {
            continue;
          }
          double stall = gap.seconds();
          (c.getValue().gstore ? gstore : hbase).add(stall);
          if (c.getValue().gstore && (worst == null || stall > worst.seconds())) {
            worst = new Worst(c.getKey(), gap.fromNanos(), stall);
          }
          Set<Integer> rows = f.placement().get(c.getKey());
          if (c.getValue().gstore && f.hit() != null && rows != null && rows.stream().noneMatch(f.hit()::contains)) {
            unrelated = Double.isNaN(unrelated) ? stall : Math.max(unrelated, stall);
          }
        }
      }
      out.add(new KindStalls(kind, injected.size(), Summary.of(gstore), Summary.of(hbase), unrelated, worst));
    });
    return out;
  }

  /** The per-kind table a run prints before its {@code stalls} lines. */
  public static List<String> table(List<KindStalls> kinds) {
    List<String> lines = new ArrayList<>();
    lines.add(String.format(Locale.ROOT, "%-15s %5s | %-29s | %-29s | %s", "fault", "count",
        "G-Store: max  median  stalled", "plain HBase: max  median  stalled", "unrelated groups: max"));
    for (KindStalls k : kinds) {
      lines.add(String.format(Locale.ROOT, "%-15s %5d | %8s %7s %7s       | %8s %7s %7s            | %s",
          k.kind().option(), k.count(), seconds(k.gstore().max()),
          seconds(k.gstore().median()), share(k.gstore().stalledShare()), seconds(k.hbase().max()),
          seconds(k.hbase().median()), share(k.hbase().stalledShare()), seconds(k.unrelatedMax())));
    }
    return lines;
  }

  private static String seconds(double s) {
    return Double.isNaN(s) ? "-" : String.format(Locale.ROOT, "%.1f", s);
  }

  private static String share(double s) {
    return Double.isNaN(s) ? "-" : String.format(Locale.ROOT, "%.0f%%", 100 * s);
  }

  /** One client's successes, in the order they happened (one thread, a monotonic clock). */
  private static final class Client {
    private final boolean gstore;
    private long[] times = new long[256];
    private int size;

    Client(boolean gstore) {
      this.gstore = gstore;
    }

    synchronized void add(long nanos) {
      if (size == times.length) {
        times = Arrays.copyOf(times, size * 2);
      }
      times[size++] = nanos;
    }

    /**
     * The client's longest time without success that ended after the fault began ({@code start}) and began before
     * it ended ({@code faultEnd}) and at most {@link #REACH_NANOS} after it began, counted from {@code start} at the
     * earliest (to {@code runEnd} if no success came); null if the client was not active as it began. A call in
     * flight elsewhere that succeeds just after the fault began does not hide the stall of the client's next call.
     */
    synchronized Gap stallAt(long start, long faultEnd, long runEnd) {
      int i = firstAtOrAfter(start);
      if (i == 0 || start - times[i - 1] > ACTIVE_NANOS) {
        return null;
      }
      long lastFrom = Math.max(start, Math.min(faultEnd, start + REACH_NANOS));
      Gap longest = null;
      for (long from = start; from <= lastFrom; i++) {
        long next = i < size ? times[i] : Math.max(runEnd, start);
        if (longest == null || next - from > longest.nanos()) {
          longest = new Gap(from, next - from);
        }
        if (i >= size) {
          break;
        }
        from = next;
      }
      return longest;
    }

    private int firstAtOrAfter(long t) {
      int lo = 0;
      int hi = size;
      while (lo < hi) {
        int mid = (lo + hi) >>> 1;
        if (times[mid] < t) {
          lo = mid + 1;
        } else {
          hi = mid;
        }
      }
      return lo;
    }
  }
}
