package org.gstore.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.gstore.client.GStoreClient;
import org.gstore.client.GroupCreationException;
import org.gstore.client.GroupExistsException;
import org.gstore.client.GroupId;
import org.gstore.client.GroupNotFoundException;
import org.gstore.client.GroupSpec;
import org.gstore.client.KeyGroup;
import org.gstore.client.RowKey;
import org.gstore.common.RowGroupedException;
import org.gstore.testing.junit.WithMiniCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Creating, inspecting and deleting groups whose members live on every region server. */
@WithMiniCluster(regionServers = 3)
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class GroupLifecycleIT {
  private static final TableName PLAYERS = TableName.valueOf("lifecycle_players");
  private static final byte[] CF = Bytes.toBytes("p");
  private static GStoreClient client;
  private static Table players;

  @BeforeAll
  static void setUp(GStoreMiniCluster cluster) throws Exception {
    players = cluster.createTable(PLAYERS, new byte[][] {CF}, TestRows.splits(6));
    client = GStoreClient.create(cluster.getConnection());
  }

  @AfterAll
  static void tearDown() throws Exception {
    client.close();
    players.close();
  }

  @Test
  void servesTableTellsTablesWithGStoreFromTablesWithout(GStoreMiniCluster cluster) throws Exception {
    assertThat(client.servesTable(PLAYERS)).isTrue();
    TableName plain = TableName.valueOf("lifecycle_without_gstore");
    cluster.getTestingUtility().createTable(plain, CF).close(); // no coprocessor: this cluster installs per table
    assertThat(client.servesTable(plain)).isFalse();
    assertThatThrownBy(() -> client.servesTable(TableName.valueOf("lifecycle_missing")))
        .isInstanceOf(org.apache.hadoop.hbase.TableNotFoundException.class);
  }

  @Test
  void createInspectAndDeleteAGroupSpanningEveryServer(GStoreMiniCluster cluster) throws Exception {
    List<byte[]> members = TestRows.rows(0, 10);
    assertThat(TestRows.serversHosting(cluster, PLAYERS, members)).as("members on every server").hasSize(3);
    KeyGroup game = client.createGroup(GroupSpec.builder().id("game-1").members(PLAYERS, members).build());

    assertThat(game.members()).hasSize(10);
    assertThat(game.refused()).isEmpty();
    assertThat(game.members()).contains(game.leader());
    KeyGroup found = client.getGroup(game.id());
    assertThat(found.members()).isEqualTo(game.members());
    assertThat(GroupId.of(game.id().toString())).isEqualTo(game.id());
    assertThat(StateTablesView.ownersOf(cluster, game.id().name())).hasSize(10);

    game.delete();
    assertThatThrownBy(() -> client.getGroup(game.id())).isInstanceOf(GroupNotFoundException.class);
    assertThat(StateTablesView.ownersOf(cluster, game.id().name())).isEmpty();
    assertThatCode(game::delete).as("deleting again: the tombstone answers").doesNotThrowAnyException();
  }

  @Test
  void atomicCreationThatMeetsAGroupedRowFailsAndLeavesNoRowJoined(GStoreMiniCluster cluster) throws Exception {
    KeyGroup holder = client.createGroup(GroupSpec.builder().id("holder")
        .members(PLAYERS, TestRows.rows(100, 1)).build());
    RowKey taken = holder.leader();
    List<byte[]> members = TestRows.rows(101, 8);
    members.add(taken.row());

    assertThatThrownBy(() -> client.createGroup(GroupSpec.builder().id("atomic").members(PLAYERS, members).build()))
        .isInstanceOfSatisfying(GroupCreationException.class, e -> {
          assertThat(e.refused()).containsOnlyKeys(taken);
          assertThat(e.refused().get(taken)).contains("holder");
        });
    TestRows.awaitFree(cluster, PLAYERS, TestRows.rows(101, 8));
    holder.delete();
  }

  @Test
  void bestEffortCreationReportsExactlyTheRefusedRows(GStoreMiniCluster cluster) throws Exception {
    KeyGroup holder = client.createGroup(GroupSpec.builder().id("holder2")
        .members(PLAYERS, TestRows.rows(200, 2)).build());
    List<byte[]> members = TestRows.rows(200, 6);
    KeyGroup partial = client.createGroup(GroupSpec.builder().id("partial").members(PLAYERS, members)
        .leader(PLAYERS, TestRows.row(205)).bestEffort().build());
    assertThat(partial.refused()).isEqualTo(holder.members());
    assertThat(partial.members()).hasSize(4).doesNotContainAnyElementsOf(holder.members());
    partial.delete();
    holder.delete();
    assertThat(StateTablesView.ownersOf(cluster, "partial")).isEmpty();
  }

  @Test
  void badRequestsGetClearErrorsAndChangeNothing(GStoreMiniCluster cluster) throws Exception {
    TableName missing = TableName.valueOf("no_such_table");
    assertThatThrownBy(() -> client.createGroup(GroupSpec.builder().member(PLAYERS, TestRows.row(300))
        .member(missing, Bytes.toBytes("x")).leader(PLAYERS, TestRows.row(300)).build()))
        .isInstanceOf(GroupCreationException.class).hasMessageContaining("does not exist");

    TableName plain = TableName.valueOf("lifecycle_plain");
    cluster.getTestingUtility().createTable(plain, CF).close();
    assertThatThrownBy(() -> client.createGroup(GroupSpec.builder().member(plain, Bytes.toBytes("x"))
        .leader(PLAYERS, TestRows.row(301)).build()))
        .isInstanceOf(GroupCreationException.class).hasMessageContaining("does not run G-Store");

    assertThatThrownBy(() -> GroupSpec.builder().build()).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least one member");

    assertThatThrownBy(() -> client.createGroup(GroupSpec.builder().id("huge")
        .members(PLAYERS, TestRows.rows(1_000, 1_001))
        .build())).isInstanceOf(GroupCreationException.class)
        .hasMessageContaining("exceeds the maximum group size of 1000").hasMessageContaining("gstore.group.max.size");

    KeyGroup once = client.createGroup(GroupSpec.builder().id("dup").members(PLAYERS, TestRows.rows(310, 2)).build());
    assertThatThrownBy(() -> client.createGroup(GroupSpec.builder().id("dup")
        .leader(PLAYERS, once.leader().row()).members(PLAYERS, TestRows.rows(320, 2)).build()))
        .isInstanceOf(GroupExistsException.class);
    once.delete();

    assertThatThrownBy(() -> client.getGroup(GroupId.of("nobody", RowKey.of(PLAYERS, TestRows.row(330)))))
        .isInstanceOf(GroupNotFoundException.class);
    assertThatThrownBy(() -> client.getGroup(GroupId.of("nobody", RowKey.of(PLAYERS, TestRows.row(330))))
        .delete()).isInstanceOf(GroupNotFoundException.class);
    assertThat(StateTablesView.ownersOf(cluster, null)).isEmpty();
  }

  @Test
  void plainWritesToAGroupedRowAreFencedUntilTheGroupIsDeleted() throws Exception {
    KeyGroup g = client.createGroup(GroupSpec.builder().id("fenced").members(PLAYERS, TestRows.rows(400, 3)).build());
    byte[] row = g.leader().row();
    assertThatThrownBy(() -> players.put(new Put(row).addColumn(CF, Bytes.toBytes("q"), Bytes.toBytes(1))))
        .isInstanceOf(RowGroupedException.class).hasMessageContaining("fenced@");
    g.delete();
    players.put(new Put(row).addColumn(CF, Bytes.toBytes("q"), Bytes.toBytes(1)));
  }
}
