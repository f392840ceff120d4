package org.gstore.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.gstore.testing.Accounts.CF;
import static org.gstore.testing.Accounts.balance;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.awaitility.Awaitility;
import org.gstore.client.GStoreClient;
import org.gstore.client.GroupNotFoundException;
import org.gstore.client.GroupSpec;
import org.gstore.client.KeyGroup;
import org.gstore.common.RowGroupedException;
import org.gstore.coprocessor.server.GStoreServers;
import org.gstore.testing.junit.WithMiniCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Group leases on a real cluster: a group whose clients are gone is deleted by its leader within its lease, exactly
 * as {@code delete()} would; one whose client stays open lives on; a lease keeps its expiry across a leader move.
 * Whether a group still holds its rows is probed with plain HBase writes, which fencing refuses while it does.
 */
@WithMiniCluster(regionServers = 3)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class GroupLeasesIT {
  private static final TableName ACCOUNTS = TableName.valueOf("leased_accounts");
  private static final byte[] PROBE = Bytes.toBytes("probe");
  private static GStoreMiniCluster cluster;
  private static Table table;

  @BeforeAll
  static void setUp(GStoreMiniCluster c) throws Exception {
    cluster = c;
    table = cluster.createTable(ACCOUNTS, new byte[][] {CF}, TestRows.splits(6));
  }

  @AfterAll
  static void tearDown() throws Exception {
    table.close();
  }

  @Test
  void aGroupWhoseClientClosedWithoutDeletingItIsDeletedWithinItsLease() throws Exception {
    byte[] from = TestRows.row(10);
    byte[] to = TestRows.row(11);
    table.put(balance(from, 100));
    table.put(balance(to, 100));
    Duration lease = Duration.ofSeconds(3);
    try (GStoreClient crashingGame = GStoreClient.create(cluster.getConfiguration())) {
      KeyGroup g = crashingGame.createGroup(GroupSpec.builder().id("abandoned").leader(ACCOUNTS, from)
          .member(ACCOUNTS, to).lease(lease).build());
      assertThat(g.lease()).isEqualTo(lease);
      Accounts.transfer(g, ACCOUNTS, from, to, 30);
    } // closed without deleting the group: nobody renews its lease now
    long closedAt = System.nanoTime();

    assertThatThrownBy(() -> table.put(probe(to))).as("still held within its lease")
        .isInstanceOf(RowGroupedException.class);
    Awaitility.await().atMost(lease.plusSeconds(15)).pollInterval(Duration.ofMillis(200))
        .ignoreException(RowGroupedException.class).until(() -> {
          table.put(probe(to));
          return true;
        });
    long releasedAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closedAt);
    assertThat(releasedAfter).as("not before its last renewal's lease ran out (a renewal every third of it)")
        .isGreaterThanOrEqualTo(lease.toMillis() * 2 / 3 - 200);
    assertThat(balance(table.get(new Get(from)))).as("its commits are in HBase, as after delete()")
        .isEqualTo(70);
    assertThat(balance(table.get(new Get(to)))).isEqualTo(130);
    try (GStoreClient other = GStoreClient.create(cluster.getConfiguration())) {
      assertThatThrownBy(() -> other.getGroup(org.gstore.client.GroupId.of("abandoned",
          org.gstore.client.RowKey.of(ACCOUNTS, from)))).isInstanceOf(GroupNotFoundException.class);
    }
  }

  @Test
  void aGroupWhoseClientStaysOpenOutlivesSeveralLeases() throws Exception {
    byte[] row = TestRows.row(20);
    Duration lease = Duration.ofSeconds(2);
    try (GStoreClient client = GStoreClient.create(cluster.getConfiguration())) {
      KeyGroup g = client.createGroup(GroupSpec.builder().id("idle").leader(ACCOUNTS, row).lease(lease).build());
      Awaitility.await().pollDelay(lease.multipliedBy(4)).atMost(lease.multipliedBy(5)).until(() -> true);
      assertThatThrownBy(() -> table.put(probe(row))).isInstanceOf(RowGroupedException.class);
      g.transact(txn -> {
        txn.put(ACCOUNTS, balance(row, 5));
        return null;
      });
      g.delete();
    }
    assertThat(balance(table.get(new Get(row)))).isEqualTo(5);
  }

  @Test
  void aLeaseKeepsItsExpiryWhenItsLeaderMoves() throws Exception {
    byte[] row = TestRows.row(30);
    Duration lease = Duration.ofSeconds(10);
    ServerName first = TestRegions.hostOf(cluster, ACCOUNTS, row);
    org.gstore.client.GroupId id;
    try (GStoreClient client = GStoreClient.create(cluster.getConfiguration())) {
      id = client.createGroup(GroupSpec.builder().id("moved").leader(ACCOUNTS, row).lease(lease).build()).id();
    }
    org.gstore.common.protocol.GroupId engineId = new org.gstore.common.protocol.GroupId("moved",
        org.gstore.common.protocol.Key.of(ACCOUNTS.getNameAsString(), row));
    Awaitility.await().atMost(Duration.ofSeconds(5))
        .until(() -> GStoreServers.on(first).leases().expiresAt(engineId) != null);
    long expiresAt = GStoreServers.on(first).leases().expiresAt(engineId);

    ServerName next = TestRegions.move(cluster, ACCOUNTS, row);
    Awaitility.await().atMost(Duration.ofSeconds(5))
        .until(() -> GStoreServers.on(next).leases().expiresAt(engineId) != null);
    assertThat(GStoreServers.on(next).leases().expiresAt(engineId))
        .as("the expiry the first leader made durable: not restarted from the move").isEqualTo(expiresAt);
    Awaitility.await().atMost(lease.plusSeconds(15)).pollInterval(Duration.ofMillis(200))
        .ignoreException(RowGroupedException.class).until(() -> {
          table.put(probe(row));
          return true;
        });
    assertThat(System.currentTimeMillis()).as("released once the lease lapsed").isGreaterThanOrEqualTo(expiresAt);
    assertThat(id.name()).isEqualTo("moved");
  }

  private static Put probe(byte[] row) {
    return new Put(row).addColumn(CF, PROBE, Bytes.toBytes(System.nanoTime()));
  }
}
