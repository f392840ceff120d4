package org.gstore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.gstore.testing.GStoreMiniCluster;
import org.gstore.testing.junit.WithMiniCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The main job, small: games run, every audit holds, every chip is accounted for, and the report says so. */
@WithMiniCluster(regionServers = 3)
class CasinoDemoIT {
  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void aSmallCasinoConservesMoneyAndReportsIt(GStoreMiniCluster cluster) throws Exception {
    ByteArrayOutputStream report = new ByteArrayOutputStream();
    CasinoDemo.Settings settings = new CasinoDemo.Settings(300, 12, 4, 6, 15, 1_000, 7, true);
    boolean ok = new CasinoDemo(cluster.getConnection(), settings,
        new PrintStream(report, true, StandardCharsets.UTF_8)).run();
    String text = report.toString(StandardCharsets.UTF_8);
    assertThat(ok).as(text).isTrue();
    assertThat(text).contains("games played          12")
        .contains("300000 chips in the table, 300000 at the start: OK")
        .contains("every table's total held in every audit")
        .containsPattern("transactions +[1-9][0-9]* committed");
  }
}
