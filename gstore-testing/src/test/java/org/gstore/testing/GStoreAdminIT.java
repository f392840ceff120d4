package org.gstore.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.gstore.testing.Accounts.CF;
import static org.gstore.testing.Accounts.balance;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Table;
import org.awaitility.Awaitility;
import org.gstore.client.GStoreAdmin;
import org.gstore.client.GStoreClient;
import org.gstore.client.GroupId;
import org.gstore.client.GroupInfo;
import org.gstore.client.GroupNotFoundException;
import org.gstore.client.GroupSpec;
import org.gstore.client.KeyGroup;
import org.gstore.client.RecoveryStatus;
import org.gstore.client.RowKey;
import org.gstore.testing.junit.WithMiniCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The operator's view through {@link GStoreAdmin}: groups with what their leaders know, deletion, recovery. */
@WithMiniCluster(regionServers = 3)
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class GStoreAdminIT {
  private static final TableName PLAYERS = TableName.valueOf("admin_players");
  private static GStoreMiniCluster cluster;
  private static Table table;
  private static GStoreClient client;

  @BeforeAll
  static void setUp(GStoreMiniCluster c) throws Exception {
    cluster = c;
    table = cluster.createTable(PLAYERS, new byte[][] {CF}, TestRows.splits(6));
    client = GStoreClient.create(cluster.getConnection());
  }

  @AfterAll
  static void tearDown() throws Exception {
    client.close();
    table.close();
  }

  @Test
  void listShowsEachGroupWithItsLeaderLeaseHolderAndCommitsAndDeleteReleasesIt() throws Exception {
    byte[] leader = TestRows.row(10);
    KeyGroup leased = client.createGroup(GroupSpec.builder().id("game-1").leader(PLAYERS, leader)
        .member(PLAYERS, TestRows.row(11)).lease(Duration.ofSeconds(9)).build());
    KeyGroup forever = client.createGroup(GroupSpec.builder().id("game-2").leader(PLAYERS, TestRows.row(20))
        .lease(Duration.ZERO).build());
    Accounts.transfer(leased, PLAYERS, leader, TestRows.row(11), 5);

    try (GStoreAdmin admin = client.admin()) {
      // a creator renews first a third of the lease after the create (the leader started the lease)
      Awaitility.await("the first renewal").atMost(Duration.ofSeconds(20))
          .until(() -> admin.describeGroup(leased.id()).holder() != null);
      GroupInfo one = admin.listGroups().stream().filter(g -> g.id().equals(leased.id())).findFirst().orElseThrow();
      assertThat(one.state()).isEqualTo("ACTIVE");
      assertThat(one.members()).containsExactlyInAnyOrderElementsOf(leased.members());
      assertThat(one.leaderServer()).isEqualTo(TestRegions.hostOf(cluster, PLAYERS, leader).getServerName());
      assertThat(one.lease()).isEqualTo(Duration.ofSeconds(9));
      assertThat(one.leaseExpiresAt()).isAfter(java.time.Instant.now());
      assertThat(one.holder()).as("pid@host#n of the renewing client").contains("@");
      assertThat(one.unshippedCommits()).as("known: the leader answered").isGreaterThanOrEqualTo(0);
      assertThat(one.unpersistedCommits()).isGreaterThanOrEqualTo(one.unshippedCommits());

      GroupInfo other = admin.describeGroup(forever.id());
      assertThat(other.lease()).isEqualTo(Duration.ZERO);
      assertThat(other.leaseExpiresAt()).isNull();
      assertThatThrownBy(() -> admin.describeGroup(GroupId.of("no-such-game", RowKey.of(PLAYERS, leader))))
          .isInstanceOf(GroupNotFoundException.class);

      admin.deleteGroup(leased.id());
      assertThat(admin.listGroups()).extracting(GroupInfo::id).doesNotContain(leased.id())
          .contains(forever.id());
      table.put(balance(leader, 1)); // plain writes again
      assertThat(balance(table.get(new Get(TestRows.row(11))))).as("its commit is in HBase").isEqualTo(5);
      forever.delete();
    }
  }

  @Test
  void recoveryStatusShowsEveryLiveRegionServerAsAlive() throws Exception {
    try (GStoreAdmin admin = client.admin();
        org.apache.hadoop.hbase.client.Admin hbase = cluster.getConnection().getAdmin()) {
      RecoveryStatus status = admin.recoveryStatus();
      assertThat(status.servers()).filteredOn(s -> s.state().equals("alive")).extracting(RecoveryStatus.Server::name)
          .containsAll(hbase.getRegionServers().stream().map(org.apache.hadoop.hbase.ServerName::getServerName)
              .toList());
    }
  }
}
