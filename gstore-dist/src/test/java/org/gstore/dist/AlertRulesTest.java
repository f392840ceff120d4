package org.gstore.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.gstore.common.metrics.PrometheusScrape;
import org.gstore.coprocessor.metrics.GaugeSources;
import org.gstore.recovery.ThresholdAlerts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The distribution's Prometheus alerting rules ({@code conf/gstore-alerts.yml}): one for each condition
 * {@code gstore status} reports, on the gauge HBase serves at {@code /prometheus} (the name {@code
 * ProcessClusterIT} scrapes), valid for {@code promtool} and passing its unit tests
 * ({@code gstore-alerts-test.yml}). {@code .ci/run} installs {@code promtool} (Debian's {@code prometheus}).
 */
class AlertRulesTest {
  /** How HBase's {@code /prometheus} names a metric of G-Store's coprocessor registry, before the metric's own. */
  private static final Path RULES = Path.of("src", "main", "dist", "conf", "gstore-alerts.yml");
  private static final Path RULE_TESTS = Path.of("src", "test", "resources", "gstore-alerts-test.yml");

  @Test
  void everyConditionGStoreStatusReportsHasARuleOnItsGauge() throws IOException {
    String rules = Files.readString(RULES);
    for (ThresholdAlerts.Cause cause : ThresholdAlerts.Cause.values()) {
      String gauge = PrometheusScrape.prometheusName(GaugeSources.alertGauge(cause));
      assertThat(rules).as("the rule for " + cause).contains("expr: " + gauge + " == 1");
    }
    assertThat(rules.lines().filter(l -> l.trim().startsWith("- alert: ")).count()).as("one rule per condition")
        .isEqualTo(ThresholdAlerts.Cause.values().length);
  }

  @Test
  void promtoolAcceptsTheRulesAndTheirUnitTestsPass(@TempDir Path dir) throws Exception {
    assumeTrue(onPath("promtool"), "promtool is not installed (Debian: apt-get install prometheus)");
    Files.copy(RULES, dir.resolve("gstore-alerts.yml"));
    Files.copy(RULE_TESTS, dir.resolve("gstore-alerts-test.yml"));
    assertThat(promtool(dir, "check", "rules", "gstore-alerts.yml")).contains("SUCCESS: 5 rules found");
    assertThat(promtool(dir, "test", "rules", "gstore-alerts-test.yml")).contains("SUCCESS");
  }

  /** {@code alertShippingBlocked} as HBase's Prometheus servlet writes it: {@code alert_shipping_blocked}. */
  private static String promtool(Path dir, String... args) throws Exception {
    List<String> command = new java.util.ArrayList<>(List.of("promtool"));
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("promtool ended").isTrue();
    assertThat(p.exitValue()).as("promtool " + String.join(" ", args) + ":\n" + out).isZero();
    return out;
  }

  private static boolean onPath(String program) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
      if (Files.isExecutable(Path.of(dir, program))) {
        return true;
      }
    }
    return false;
  }
}
