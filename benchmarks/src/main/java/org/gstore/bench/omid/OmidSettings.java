package org.gstore.bench.omid;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * How Apache Omid runs in a benchmark: the TSO's wait strategy, low-latency mode and commit-table batching, and
 * the client's post-commit mode. Parsed from {@code wait=low-cpu,low-latency=no,batch-ms=10,post-commit=async}.
 *
 * @param waitStrategy {@code LOW_CPU} (blocking) or {@code HIGH_THROUGHPUT} (busy-spinning) LMAX queues in the TSO
 * @param lowLatency the client writes its own commit-table entry and the TSO answers before persisting
 * @param batchPersistMillis how long the TSO waits to fill a commit-table batch before writing it
 * @param asyncPostCommit the client updates shadow cells after {@code commit} returns (ASYNC) or before (SYNC)
 */
public record OmidSettings(String waitStrategy, boolean lowLatency, int batchPersistMillis,
    boolean asyncPostCommit) {
  /** The configuration `gstore bench` calls {@code omid}: the best one measured on this project's machine. */
  public static final OmidSettings BEST = new OmidSettings("LOW_CPU", true, 1, true);

  public OmidSettings {
    if (!waitStrategy.equals("LOW_CPU") && !waitStrategy.equals("HIGH_THROUGHPUT")) {
      throw new IllegalArgumentException("Omid wait strategy is low-cpu or high-throughput, not " + waitStrategy);
    }
    if (batchPersistMillis < 1) {
      throw new IllegalArgumentException("Omid batch-ms must be at least 1, not " + batchPersistMillis);
    }
  }

  /** {@link #BEST} with the given {@code key=value} pairs changed; empty text gives {@link #BEST}. */
  public static OmidSettings parse(String text) {
    Map<String, String> values = new LinkedHashMap<>();
    for (String pair : text.split(",")) {
      if (pair.isBlank()) {
        continue;
      }
      String[] kv = pair.split("=", 2);
      if (kv.length != 2) {
        throw new IllegalArgumentException("Omid settings are key=value pairs, not '" + pair + "'");
      }
      values.put(kv[0].trim(), kv[1].trim().toLowerCase(Locale.ROOT));
    }
    String wait = BEST.waitStrategy;
    boolean lowLatency = BEST.lowLatency;
    int batch = BEST.batchPersistMillis;
    boolean async = BEST.asyncPostCommit;
    for (Map.Entry<String, String> e : values.entrySet()) {
      String v = e.getValue();
      switch (e.getKey()) {
        case "wait" -> wait = v.replace('-', '_').toUpperCase(Locale.ROOT);
        case "low-latency" -> lowLatency = yes(e.getKey(), v);
        case "batch-ms" -> batch = Integer.parseInt(v);
        case "post-commit" -> async = switch (v) {
          case "async" -> true;
          case "sync" -> false;
          default -> throw new IllegalArgumentException("Omid post-commit is async or sync, not " + v);
        };
        default -> throw new IllegalArgumentException("unknown Omid setting '" + e.getKey()
            + "' (wait, low-latency, batch-ms, post-commit)");
      }
    }
    return new OmidSettings(wait, lowLatency, batch, async);
  }

  private static boolean yes(String key, String v) {
    return switch (v) {
      case "yes", "true" -> true;
      case "no", "false" -> false;
      default -> throw new IllegalArgumentException("Omid " + key + " is yes or no, not " + v);
    };
  }

  /** The system's name in reports: {@code omid} for {@link #BEST}, else what differs from it. */
  public String label() {
    if (equals(BEST)) {
      return "omid";
    }
    StringBuilder sb = new StringBuilder("omid");
    if (!waitStrategy.equals(BEST.waitStrategy)) {
      sb.append(waitStrategy.equals("LOW_CPU") ? "-lowcpu" : "-spin");
    }
    if (lowLatency != BEST.lowLatency) {
      sb.append(lowLatency ? "-lowlat" : "-nolowlat");
    }
    if (batchPersistMillis != BEST.batchPersistMillis) {
      sb.append("-batch").append(batchPersistMillis);
    }
    if (asyncPostCommit != BEST.asyncPostCommit) {
      sb.append(asyncPostCommit ? "-async" : "-sync");
    }
    return sb.toString();
  }

  @Override
  public String toString() {
    return String.format("waitStrategy %s, lowLatency %s, batchPersistTimeoutInMs %d, postCommitMode %s",
        waitStrategy, lowLatency, batchPersistMillis, asyncPostCommit ? "ASYNC" : "SYNC");
  }
}
