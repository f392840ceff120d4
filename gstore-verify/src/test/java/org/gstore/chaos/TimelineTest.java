package org.gstore.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TimelineTest {
  @Test
  void eachSecondHasItsCommitsItsP99AndTheFaultsRunningThen(@TempDir Path dir) throws Exception {
    long start = System.nanoTime() - TimeUnit.SECONDS.toNanos(3); // "now" is second 3 of the run
    Timeline timeline = new Timeline(start);
    for (int i = 1; i <= 100; i++) {
      timeline.committed("bank", TimeUnit.MILLISECONDS.toNanos(i)); // p99 about 99 ms
    }
    timeline.committed("append", TimeUnit.MILLISECONDS.toNanos(5));
    timeline.fault("kill -9 rs1", start + TimeUnit.MILLISECONDS.toNanos(1_500),
        start + TimeUnit.MILLISECONDS.toNanos(2_500));
    // as a chaos run names some: commas, and an exception's message with a line break (XChart failed on those)
    timeline.fault("move from localhost,23020,17; no split (java.io.IOException: one\ntwo)",
        start + TimeUnit.MILLISECONDS.toNanos(2_100), start + TimeUnit.MILLISECONDS.toNanos(2_200));

    Path png = timeline.write(dir);

    List<String> csv = Files.readAllLines(dir.resolve("timeline.csv"));
    assertThat(csv.get(0)).isEqualTo("second,append_committed,append_p99_ms,bank_committed,bank_p99_ms,faults");
    assertThat(csv).hasSize(5); // seconds 0 to 3
    assertThat(csv.get(1)).isEqualTo("0,0,,0,,");
    assertThat(csv.get(2)).endsWith(",kill -9 rs1");
    assertThat(csv.get(3))
        .endsWith(",kill -9 rs1 + move from localhost;23020;17; no split (java.io.IOException: one two)");
    assertThat(csv.get(4)).startsWith("3,1,5.0,100,").endsWith(",");
    assertThat(Double.parseDouble(csv.get(4).split(",")[4])).isBetween(98.0, 100.5);
    assertThat(png).exists();
    assertThat(Files.size(png)).isGreaterThan(1_000);
  }
}
