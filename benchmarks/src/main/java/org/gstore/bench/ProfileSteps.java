package org.gstore.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/**
 * Where a JFR recording's CPU samples went, in G-Store's terms: each execution sample is charged to the innermost
 * G-Store method on its stack (the G-Store step that made the JVM do that work, HBase's client or a MAC included),
 * or, with no G-Store frame on the stack, to its thread's kind (HBase's RPC handlers, its WAL, HDFS...). The
 * benchmark's own client threads are left out. {@code gstore profile FILE.jfr} prints it; see
 * {@code docs/benchmarks.md} for how the recording is made.
 */
public final class ProfileSteps {
  private static final String GSTORE = "org.gstore.";
  private static final String BENCH = "org.gstore.bench.";

  private final Map<String, Long> byGStoreMethod = new HashMap<>();
  private final Map<String, Long> byThreadKind = new HashMap<>();
  private final int windows;
  private long samples;
  private long clientSamples;

  /**
   * Reads the execution samples of {@code recording} taken inside a measured point's window ({@link MeasuredPoint});
   * every sample if it has no such window (a recording made otherwise, or a run that failed before its first
   * point: {@link #windows()} says which). Two passes: the windows, then the samples, streamed.
   */
  public static ProfileSteps of(Path recording) throws IOException {
    TreeMap<Instant, Instant> windows = new TreeMap<>(); // start to end
    try (RecordingFile file = new RecordingFile(recording)) {
      while (file.hasMoreEvents()) {
        RecordedEvent e = file.readEvent();
        if (e.getEventType().getName().equals(MeasuredPoint.NAME)) {
          windows.put(e.getStartTime(), e.getEndTime());
        }
      }
    }
    ProfileSteps profile = new ProfileSteps(windows.size());
    try (RecordingFile file = new RecordingFile(recording)) {
      while (file.hasMoreEvents()) {
        RecordedEvent e = file.readEvent();
        if (e.getEventType().getName().equals("jdk.ExecutionSample")
            && (windows.isEmpty() || within(e.getStartTime(), windows))) {
          profile.add(e);
        }
      }
    }
    return profile;
  }

  private static boolean within(Instant t, TreeMap<Instant, Instant> windows) {
    Map.Entry<Instant, Instant> w = windows.floorEntry(t);
    return w != null && !t.isAfter(w.getValue());
  }

  private ProfileSteps(int windows) {
    this.windows = windows;
  }

  /** How many measured windows the samples were taken from (0: the whole recording was counted). */
  public int windows() {
    return windows;
  }

  private void add(RecordedEvent sample) {
    String thread = sample.getThread("sampledThread") == null ? "?"
        : String.valueOf(sample.getThread("sampledThread").getJavaName());
    if (thread.startsWith("bench-client")) {
      clientSamples++;
      return;
    }
    samples++;
    String method = innermostGStoreMethod(sample.getStackTrace());
    if (method != null) {
      byGStoreMethod.merge(method, 1L, Long::sum);
    } else {
      byThreadKind.merge(threadKind(thread), 1L, Long::sum);
    }
  }

  private static String innermostGStoreMethod(RecordedStackTrace stack) {
    if (stack == null) {
      return null;
    }
    for (RecordedFrame f : stack.getFrames()) {
      String type = f.getMethod().getType().getName();
      if (type.startsWith(GSTORE) && !type.startsWith(BENCH)) {
        return type.substring(GSTORE.length()) + "." + f.getMethod().getName();
      }
    }
    return null;
  }

  /**
   * A thread's name up to its first number, which stands for the rest: {@code RpcServer.default.FPBQ.Fifo.handler=#},
   * {@code IPC Server handler #} (the NameNode's), {@code AsyncFSWAL-#}...
   */
  private static String threadKind(String thread) {
    int digit = 0;
    while (digit < thread.length() && !Character.isDigit(thread.charAt(digit))) {
      digit++;
    }
    return digit == thread.length() ? thread : thread.substring(0, digit) + "#";
  }

  /** Samples charged to each G-Store method ({@code package.Class.method}, less {@code org.gstore.}). */
  Map<String, Long> gstoreMethods() {
    return Map.copyOf(byGStoreMethod);
  }

  /** Samples of the benchmark's client threads, left out of everything else. */
  long clientSamples() {
    return clientSamples;
  }

  /** Prints the {@code top} heaviest G-Store methods and thread kinds, with their share of the samples. */
  public void print(PrintStream out, int top) {
    long inGStore = byGStoreMethod.values().stream().mapToLong(Long::longValue).sum();
    out.printf(Locale.ROOT, "%d CPU samples of the cluster (%d of the benchmark's clients left out) %s;"
        + " %.1f%% under a G-Store method%n", samples, clientSamples, windows == 0
            ? "in the whole recording (it marks no measured point)" : "in " + windows + " measured points",
        percent(inGStore));
    out.println("innermost G-Store method on the stack:");
    printTop(out, byGStoreMethod, top);
    out.println("no G-Store frame, by thread:");
    printTop(out, byThreadKind, top);
  }

  private void printTop(PrintStream out, Map<String, Long> counts, int top) {
    List<Map.Entry<String, Long>> sorted = counts.entrySet().stream()
        .sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(top).toList();
    for (Map.Entry<String, Long> e : sorted) {
      out.printf(Locale.ROOT, "  %5.1f%%  %s%n", percent(e.getValue()), e.getKey());
    }
  }

  private double percent(long count) {
    return samples == 0 ? 0 : 100.0 * count / samples;
  }
}
