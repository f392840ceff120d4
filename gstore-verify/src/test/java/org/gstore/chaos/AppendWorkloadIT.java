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
 * The list-append workload on a mini cluster without faults: groups form and dissolve over overlapping keys, teams
 * of clients commit in them at once, plain reads and appends go between them, and the history the clients recorded
 * must be strictly serializable with nothing lost or duplicated. What the chaos runs check under faults, here as the
 * baseline that must always hold; and the workload must produce what the checker looks for: transactions of
 * several clients in one group, aborts by conflict, plain appends taken and refused.
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
        .until(() -> workload.transactionsOk() >= 300 && workload.createsOk() >= 100
            && workload.conflicts() > 0 && workload.plainAppendsRefused() > 0);
    workload.stop(java.time.Duration.ofMinutes(1));
    CheckReport report = workload.check();
    System.out.println("append workload: " + workload.transactionsOk() + " transactions (" + workload
        .sharedTransactionsOk() + " shared, " + workload.conflicts() + " conflicts), " + workload.createsOk()
        + " groups created, " + workload.plainAppendsOk() + " plain appends (" + workload.plainAppendsRefused()
        + " refused as grouped); " + report.line());
    report.examples().forEach(System.out::println);
    assertThat(report.line()).as(String.join("\n", report.examples())).endsWith("verdict=strict-serializable");
    assertThat(workload.sharedTransactionsOk()).as("transactions of a client that did not create the group")
        .isPositive();
    assertThat(workload.plainAppendsOk()).as("plain appends to free rows").isPositive();
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
