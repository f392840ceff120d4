package org.gstore.chaos;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.gstore.recovery.OutageStep;
import org.gstore.testing.process.ClusterLayout;

/**
 * Where the seconds of a stall went: the {@link OutageStep}s that G-Store's region servers logged during it, read
 * from the process cluster's region server logs. A step counts when it overlaps the stall's window; steps of one
 * kind on one server are summed up in one entry (how many, the longest, what it was on and how it ended).
 */
final class StallSteps {
  /** Steps of one kind taken by one region server in a window. */
  record Entry(OutageStep.Kind kind, String at, int count, OutageStep.Ended longest) {
    String describe() {
      return String.format(Locale.ROOT, "%s at %s: %d, longest %.1f s (%s, %s)", kind.label(), shortName(at), count,
          longest.millis() / 1000.0, longest.on(), longest.outcome());
    }
  }

  private final List<OutageStep.Ended> steps;

  private StallSteps(List<OutageStep.Ended> steps) {
    this.steps = steps;
  }

  /** Every step that ended at or after {@code sinceMillis} (epoch), from every region server's log in {@code dir}. */
  static StallSteps read(Path dir, long sinceMillis) throws IOException {
    List<OutageStep.Ended> steps = new ArrayList<>();
    try (Stream<Path> roles = Files.list(dir)) {
      for (Path role : roles.filter(p -> ClusterLayout.isRegionServer(p.getFileName().toString())).toList()) {
        Path log = role.resolve(role.getFileName() + ".log");
        if (!Files.exists(log)) {
          continue;
        }
        try (BufferedReader in = Files.newBufferedReader(log, StandardCharsets.UTF_8)) {
          for (String line = in.readLine(); line != null; line = in.readLine()) {
            OutageStep.parse(line).filter(s -> s.endedAt() >= sinceMillis).ifPresent(steps::add);
          }
        }
      }
    }
    return new StallSteps(steps);
  }

  /** The steps overlapping {@code [fromMillis, toMillis]}, by kind and server, the longest first. */
  List<Entry> during(long fromMillis, long toMillis) {
    Map<String, List<OutageStep.Ended>> byKindAndServer = new LinkedHashMap<>();
    for (OutageStep.Ended s : steps) {
      if (s.endedAt() >= fromMillis && s.startedAt() <= toMillis) {
        byKindAndServer.computeIfAbsent(s.kind() + " " + s.at(), k -> new ArrayList<>()).add(s);
      }
    }
    List<Entry> entries = new ArrayList<>();
    byKindAndServer.values().forEach(same -> {
      OutageStep.Ended longest = same.stream().max(Comparator.comparingLong(OutageStep.Ended::millis)).orElseThrow();
      entries.add(new Entry(longest.kind(), longest.at(), same.size(), longest));
    });
    entries.sort(Comparator.comparingLong((Entry e) -> e.longest().millis()).reversed());
    return entries;
  }

  /** {@code localhost,16020,1796652037286} as {@code localhost:16020}: which server, without its start code. */
  private static String shortName(String server) {
    String[] parts = server.split(",");
    return parts.length == 3 ? parts[0] + ":" + parts[1] : server;
  }
}
