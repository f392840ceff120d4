package org.gstore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.awaitility.Awaitility;
import org.gstore.client.GStoreAdmin;
import org.gstore.client.GStoreClient;
import org.gstore.client.RecoveryStatus;
import org.gstore.testing.GStoreMiniCluster;
import org.gstore.testing.junit.WithMiniCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The command line against an existing cluster given its hbase-site.xml, and its answers to bad input. */
@WithMiniCluster(regionServers = 3)
class GStoreCliIT {
  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void demoRunsAgainstAClusterGivenItsSiteFile(GStoreMiniCluster cluster, @TempDir Path dir) throws Exception {
    Path site = cluster.writeSiteFile(dir.resolve("hbase-site.xml"));
    int code = GStore.run(new String[] {"demo", "--conf", site.toString(), "--players", "120", "--games", "4",
        "--dealers", "2", "--seats", "5", "--bets", "8"});
    assertThat(code).as("0: every chip accounted for, every audit held").isZero();

    assertThat(GStore.run(new String[] {"status", "--conf", site.toString()})).isZero();
    assertThat(GStore.run(new String[] {"groups", "list", "--conf", site.toString()})).isZero();
    assertThat(GStore.run(new String[] {"groups", "show", "no-such-game@casino_players/x", "--conf",
        site.toString()})).as("said plainly, exit 1").isEqualTo(1);
    try (GStoreClient client = GStoreClient.create(cluster.getConnection()); GStoreAdmin admin = client.admin()) {
      List<RecoveryStatus.Server> servers = admin.recoveryStatus().servers();
      assertThat(servers).filteredOn(s -> s.state().equals("alive")).hasSize(3);
      // G-Store starts on a server with its first G-Store region; HBase places the demo's table, at times all of it
      // on one server, so the servers that must have a WAL are those hosting the table
      Set<String> hosting = new HashSet<>();
      try (RegionLocator regions = cluster.getConnection().getRegionLocator(CasinoDemo.PLAYERS)) {
        regions.getAllRegionLocations().forEach(r -> hosting.add(r.getServerName().getServerName()));
      }
      assertThat(hosting).isNotEmpty();
      assertThat(servers).filteredOn(s -> hosting.contains(s.name())).hasSize(hosting.size())
          .allSatisfy(s -> assertThat(s.walFiles()).as("each server hosting the demo's table has its WAL")
              .isPositive());
      // the demo's commits were shipped; within a few heartbeats every server claims them persisted
      Awaitility.await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
          assertThat(admin.recoveryStatus().servers()).anySatisfy(s -> {
            assertThat(s.shippedThrough()).isPositive();
            assertThat(s.persistedThrough()).isEqualTo(s.shippedThrough());
          }));
    }
  }

  @Test
  @Timeout(30)
  void badCommandLinesExitWithTwoAndChangeNothing(@TempDir Path dir) throws Exception {
    assertThat(GStore.run(new String[] {"roulette"})).isEqualTo(2);
    assertThat(GStore.run(new String[] {"demo", "--players"})).isEqualTo(2);
    assertThat(GStore.run(new String[] {"demo", "--players", "-5"})).isEqualTo(2);
    assertThat(GStore.run(new String[] {"demo", "--seats", "1"})).isEqualTo(2);
    assertThat(GStore.run(new String[] {"bench", "--keys", "sorted"})).isEqualTo(2);
    assertThat(GStore.run(new String[] {"demo", "--conf", dir.resolve("missing.xml").toString()})).isEqualTo(2);
    assertThat(GStore.run(new String[] {"groups", "show", "--conf", "x.xml"})).as("no id").isEqualTo(2);
    assertThat(GStore.run(new String[] {"groups", "delete", "not-an-id", "--conf", "x.xml"})).isEqualTo(2);
    assertThat(GStore.run(new String[] {"groups", "list"})).as("no cluster named").isEqualTo(2);
    assertThat(GStore.run(new String[] {"help"})).isZero();
    assertThat(Files.list(dir)).isEmpty();
  }
}
