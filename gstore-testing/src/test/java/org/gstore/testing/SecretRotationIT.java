package org.gstore.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Table;
import org.gstore.client.GStoreClient;
import org.gstore.client.GroupSpec;
import org.gstore.client.KeyGroup;
import org.gstore.coprocessor.config.GStoreConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A cluster halfway through a rotation of its secret (operations.md, "Rotating the cluster secret"): two region
 * servers in phase 1 (they sign with the old secret and accept the new one) and one restarted into phase 2 (it signs
 * with the new secret and accepts the old one). A group led on the phase-2 server with a member on a phase-1 server
 * forms (datagrams both ways), commits, ships its writes past the member's fence (owner tokens signed with the new
 * secret) and is deleted, so its commits are in HBase. Runs its own cluster.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class SecretRotationIT {
  private static final TableName BANK = TableName.valueOf("rotation_bank");
  private static GStoreMiniCluster cluster;
  private static ServerName phase2;

  @BeforeAll
  static void startHalfwayThroughARotation() throws Exception {
    Path dir = Files.createTempDirectory("gstore-rotation");
    Path next = secretFile(dir, "next.secret", "the-next-cluster-secret-of-this-test");
    cluster = GStoreMiniCluster.start(2, Map.of(GStoreConfig.CLUSTER_SECRET_ACCEPTED_FILE, next.toString()));
    Configuration conf = cluster.getTestingUtility().getMiniHBaseCluster().getConf(); // what servers start with
    String old = conf.get(GStoreConfig.CLUSTER_SECRET_FILE);
    // the third server is restarted into phase 2; the others stay in phase 1 (they read their settings at start)
    conf.set(GStoreConfig.CLUSTER_SECRET_FILE, next.toString());
    conf.set(GStoreConfig.CLUSTER_SECRET_ACCEPTED_FILE, old);
    try {
      var thread = cluster.getTestingUtility().getMiniHBaseCluster().startRegionServer();
      thread.waitForServerOnline();
      phase2 = thread.getRegionServer().getServerName();
    } finally {
      conf.set(GStoreConfig.CLUSTER_SECRET_FILE, old);
      conf.set(GStoreConfig.CLUSTER_SECRET_ACCEPTED_FILE, next.toString());
    }
    cluster.createTable(BANK, new byte[][] {Accounts.CF}, TestRows.splits(2)).close();
  }

  @AfterAll
  static void stopCluster() throws Exception {
    cluster.close();
  }

  @Test
  void aGroupAcrossServersOfNeighbouringPhasesFormsCommitsAndShips() throws Exception {
    byte[] leader = TestRows.row(1); // the first region
    byte[] member = TestRows.row(7); // the second region
    moveTo(leader, phase2);
    ServerName phase1 = cluster.getTestingUtility().getMiniHBaseCluster().getLiveRegionServerThreads().stream()
        .map(t -> t.getRegionServer().getServerName()).filter(s -> !s.equals(phase2)).findFirst().orElseThrow();
    moveTo(member, phase1);

    try (Table table = cluster.getConnection().getTable(BANK);
        GStoreClient client = GStoreClient.create(cluster.getConfiguration())) {
      table.put(Accounts.balance(leader, 100));
      table.put(Accounts.balance(member, 100));
      KeyGroup g = client.createGroup(GroupSpec.builder().id("rotating").leader(BANK, leader)
          .member(BANK, member).build());
      Accounts.transfer(g, BANK, leader, member, 40);
      g.delete(); // returns once the commit is shipped past the member's fence and the rows are released
      assertThat(Accounts.balance(table.get(new Get(leader)))).isEqualTo(60);
      assertThat(Accounts.balance(table.get(new Get(member)))).isEqualTo(140);
    }
  }

  /**
   * Moves the region of {@code row} to {@code to}, asking again while it lands elsewhere: the master places a moved
   * region on another server when the destination is not yet in its balancer's view of the cluster (a server that
   * just started; seen once: "assigned to random hosts, since the old hosts ... are no longer present").
   */
  private static void moveTo(byte[] row, ServerName to) throws Exception {
    try (RegionLocator locator = cluster.getConnection().getRegionLocator(BANK);
        Admin admin = cluster.getConnection().getAdmin()) {
      long deadline = System.currentTimeMillis() + 60_000;
      while (!to.equals(locator.getRegionLocation(row, true).getServerName())) {
        assertThat(System.currentTimeMillis()).as("the region of the row moved to " + to).isLessThan(deadline);
        admin.move(locator.getRegionLocation(row, true).getRegion().getEncodedNameAsBytes(), to);
        cluster.getTestingUtility().waitUntilNoRegionsInTransition(60_000);
      }
    }
  }

  private static Path secretFile(Path dir, String name, String secret) throws Exception {
    Path file = Files.createFile(dir.resolve(name),
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(file, secret, StandardCharsets.UTF_8);
    return file;
  }
}
