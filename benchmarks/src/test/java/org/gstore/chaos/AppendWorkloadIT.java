package org.gstore.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.TableName;
import org.awaitility.Awaitility;
import org.gstore.history.CheckReport;
import org.gstore.testing.GStoreMiniCluster;
import org.gstore.testing.junit.WithMiniCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The list-append workload on a mini cluster without faults: groups form and dissolve over overlapping keys, with
 * plain reads between them, and the history the clients recorded must be strictly serializable with nothing lost or
 * duplicated. What the chaos runs check under faults, here as the baseline that must always hold.
 */
@WithMiniCluster(regionServers = 3)
class AppendWorkloadIT {
  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void groupsFormingAndDissolvingOverOverlappingKeysLeaveAStrictlySerializableHistory(GStoreMiniCluster cluster,
      @TempDir Path dir) throws Exception {
    AppendWorkload workload = new AppendWorkload(cluster.getConnection(), TableName.valueOf("append_baseline"), 30,
        4, 7, dir.resolve("history.jsonl"));
    workload.start();
    Awaitility.await("a few hundred transactions").atMost(java.time.Duration.ofMinutes(2))
        .pollInterval(java.time.Duration.ofMillis(200))
        .until(() -> workload.transactionsOk() >= 300 && workload.createsOk() >= 100);
    workload.stop(java.time.Duration.ofMinutes(1));
    CheckReport report = workload.check();
    System.out.println("append workload: " + workload.transactionsOk() + " transactions, " + workload.createsOk()
        + " groups created; " + report.line());
    report.examples().forEach(System.out::println);
    assertThat(report.line()).as(String.join("\n", report.examples())).endsWith("verdict=strict-serializable");
  }

  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void aClientThatAppendsWithoutReadingIsCaught(GStoreMiniCluster cluster, @TempDir Path dir) throws Exception {
    AppendWorkload workload = new AppendWorkload(cluster.getConnection(), TableName.valueOf("append_blind"), 10, 4,
        8, dir.resolve("history.jsonl"));
    workload.plantBlindAppends();
    workload.start();
    Awaitility.await("some transactions").atMost(java.time.Duration.ofMinutes(2))
        .pollInterval(java.time.Duration.ofMillis(200)).until(() -> workload.transactionsOk() >= 100);
    workload.stop(java.time.Duration.ofMinutes(1));
    CheckReport report = workload.check();
    System.out.println("blind appends: " + report.line());
    assertThat(report.verdict()).isEqualTo("anomalies");
    assertThat(report.count("lost") + report.count("incompatible-order")).as(report.line()).isPositive();
  }
}
