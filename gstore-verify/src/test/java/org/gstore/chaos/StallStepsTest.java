package org.gstore.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.gstore.recovery.OutageStep;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StallStepsTest {
  private static final String RS1 = "localhost,21010,1";
  private static final String RS2 = "localhost,21020,2";

  @Test
  void aStallsStepsAreThoseOverlappingItsWindowByKindAndServerTheLongestFirst(@TempDir Path dir) throws Exception {
    log(dir, "rs1",
        end("region-drain", 900, 10_900, "ok", RS1, "-", "bank,,1.a"), // 10.0-10.9 s: in
        end("region-drain", 300, 11_200, "ok", RS1, "-", "bank,b,1.b"), // in, shorter
        end("region-drain", 100, 9_000, "ok", RS1, "-", "bank,c,1.c"), // ended before the window
        "2026-12-07 14:02:05,166 INFO [main] regionserver.HRegion: Closing region bank,,1.a", // not a step
        end("wal-replay", 2_000, 5_000, "ok", RS1, "localhost", "old#1")); // before the run: not read
    log(dir, "rs2",
        end("replay-wait", 4_000, 14_500, "ok", RS2, "-", "bank,d,1.d"), // 10.5-14.5 s: in
        end("region-open", 1_000, 40_000, "serving", RS2, "-", "bank,e,1.e")); // after the window
    Files.createDirectories(dir.resolve("master"));
    Files.writeString(dir.resolve("master").resolve("master.log"),
        end("region-drain", 5_000, 12_000, "ok", "m", "-", "x") + "\n"); // not a region server's log

    List<StallSteps.Entry> during = StallSteps.read(dir, 6_000).during(10_000, 13_000);

    assertThat(during).extracting(e -> e.kind() + " " + e.at() + " " + e.count() + " " + e.longest().millis())
        .containsExactly("REPLAY_WAIT " + RS2 + " 1 4000", "REGION_DRAIN " + RS1 + " 2 900");
    assertThat(during.get(1).describe()).isEqualTo("region-drain at localhost:21010: 2, longest 0.9 s (bank,,1.a, ok)");
  }

  private static String end(String kind, long ms, long ended, String outcome, String at, String about, String on) {
    return OutageStep.MARK + kind + " end ms=" + ms + " ended=" + ended + " outcome=" + outcome + " at=" + at
        + " about=" + about + " on=" + on;
  }

  private static void log(Path dir, String role, String... lines) throws Exception {
    Files.createDirectories(dir.resolve(role));
    Files.write(dir.resolve(role).resolve(role + ".log"), List.of(lines));
  }
}
