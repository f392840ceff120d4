package org.gstore.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.security.PrivilegedExceptionAction;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.coprocessor.CoprocessorHost;
import org.apache.hadoop.hbase.security.AccessDeniedException;
import org.apache.hadoop.hbase.security.User;
import org.apache.hadoop.hbase.security.access.AccessControlClient;
import org.apache.hadoop.hbase.security.access.AccessController;
import org.apache.hadoop.hbase.security.access.Permission;
import org.apache.hadoop.hbase.util.Bytes;
import org.awaitility.Awaitility;
import org.gstore.client.GStoreClient;
import org.gstore.client.GroupId;
import org.gstore.client.GroupSpec;
import org.gstore.client.KeyGroup;
import org.gstore.client.Transaction;
import org.gstore.coprocessor.GStoreMasterObserver;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * With HBase's AccessController on, G-Store's endpoints act for their caller: grouping rows needs READ and WRITE
 * on their table, reading in a transaction needs READ, committing needs WRITE, as the same data would through
 * plain HBase. Runs its own cluster with security on (simple authentication carries the user names), shared by
 * its tests.
 */
class AuthorizationIT {
  private static final byte[] CF = Bytes.toBytes("f");
  private static final byte[] CF2 = Bytes.toBytes("g");
  private static final byte[] Q = Bytes.toBytes("q");
  private static final TableName ROWS = TableName.valueOf("secured_rows");
  private static final TableName LEADERS = TableName.valueOf("secured_leaders");
  private static final TableName MEMBERS = TableName.valueOf("secured_members");

  private static GStoreMiniCluster cluster;

  /** Runs {@code action} as {@code user} with a G-Store client of that user's own connection. */
  private interface AsUser<T> {
    T run(GStoreClient client, Table table) throws Exception;
  }

  private static <T> T as(User user, AsUser<T> action) throws Exception {
    return as(user, ROWS, action);
  }

  private static <T> T as(User user, TableName name, AsUser<T> action) throws Exception {
    return user.runAs((PrivilegedExceptionAction<T>) () -> {
      try (Connection connection = ConnectionFactory.createConnection(cluster.getConfiguration(), user);
          GStoreClient client = GStoreClient.create(connection); Table table = connection.getTable(name)) {
        return action.run(client, table);
      }
    });
  }

  @BeforeAll
  static void startSecuredCluster() throws Exception {
    String accessController = AccessController.class.getName();
    // the mini cluster runs each region server as <user>.hfs.<n>, n counting every region server started in this
    // JVM (a static counter; the integration tests share a JVM): they are HBase's service users, so superusers
    String me = User.getCurrent().getShortName();
    String servers = IntStream.range(0, 1000).mapToObj(n -> me + ".hfs." + n).collect(Collectors.joining(","));
    Map<String, String> secure = Map.of(
        "hbase.superuser", me + "," + servers,
        "hbase.security.authorization", "true",
        CoprocessorHost.MASTER_COPROCESSOR_CONF_KEY, accessController + "," + GStoreMasterObserver.class.getName(),
        CoprocessorHost.REGION_COPROCESSOR_CONF_KEY, accessController,
        CoprocessorHost.REGIONSERVER_COPROCESSOR_CONF_KEY, accessController);
    cluster = GStoreMiniCluster.start(2, secure); // two servers: a leader's region can move
    cluster.getTestingUtility().waitTableAvailable(TableName.valueOf("hbase:acl"));
  }

  @AfterAll
  static void stopCluster() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void groupingReadingAndCommittingNeedTheCallersOwnHBasePermissions() throws Throwable {
    try (Table admin = cluster.createTable(ROWS, new byte[][] {CF}, null)) {
      byte[] leader = Bytes.toBytes("row-1");
      byte[] member = Bytes.toBytes("row-2");
      admin.put(new Put(leader).addColumn(CF, Q, Bytes.toBytes("v0")));
      User reader = User.createUserForTesting(cluster.getConfiguration(), "reader", new String[0]);
      User writer = User.createUserForTesting(cluster.getConfiguration(), "writer", new String[0]);
      User stranger = User.createUserForTesting(cluster.getConfiguration(), "stranger", new String[0]);
      AccessControlClient.grant(cluster.getConnection(), ROWS, "reader", null, null, Permission.Action.READ);
      AccessControlClient.grant(cluster.getConnection(), ROWS, "writer", null, null, Permission.Action.READ,
          Permission.Action.WRITE);
      Awaitility.await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() ->
          as(reader, (c, t) -> !t.get(new Get(leader)).isEmpty())
          && as(writer, (c, t) -> {
            t.put(new Put(Bytes.toBytes("row-9")).addColumn(CF, Q, Bytes.toBytes("w")));
            return true;
          }));

      GroupSpec spec = GroupSpec.builder().id("secured").leader(ROWS, leader).member(ROWS, member).build();
      assertThatThrownBy(() -> as(stranger, (c, t) -> c.createGroup(spec)))
          .as("no permission at all").isInstanceOf(AccessDeniedException.class).hasMessageContaining("stranger");
      assertThatThrownBy(() -> as(reader, (c, t) -> c.createGroup(spec)))
          .as("grouping keeps others from writing: it needs WRITE").isInstanceOf(AccessDeniedException.class)
          .hasMessageContaining("WRITE");
      assertThat(StateTablesView.isGrouped(cluster, ROWS, leader)).as("a denied create holds nothing").isFalse();

      GroupId id = as(writer, (c, t) -> {
        KeyGroup g = c.createGroup(spec);
        g.transact(txn -> {
          txn.put(ROWS, new Put(leader).addColumn(CF, Q, Bytes.toBytes("v1")));
          return null;
        });
        return g.id();
      });

      String seen = as(reader, (c, t) -> {
        KeyGroup g = c.getGroup(id);
        String value;
        try (Transaction txn = g.begin()) {
          value = Bytes.toString(txn.get(ROWS, new Get(leader)).getValue(CF, Q));
          txn.put(ROWS, new Put(member).addColumn(CF, Q, Bytes.toBytes("forbidden")));
          assertThatThrownBy(txn::commit).as("READ does not let it commit").isInstanceOf(AccessDeniedException.class);
        }
        assertThatThrownBy(g::delete).as("nor dissolve the group").isInstanceOf(AccessDeniedException.class);
        return value;
      });
      assertThat(seen).isEqualTo("v1");

      assertThatThrownBy(() -> as(stranger, (c, t) -> c.getGroup(id)))
          .isInstanceOf(AccessDeniedException.class);
      as(writer, (c, t) -> {
        c.getGroup(id).delete();
        return null;
      });
      assertThat(Bytes.toString(admin.get(new Get(leader)).getValue(CF, Q))).isEqualTo("v1");
      assertThat(admin.get(new Get(member)).isEmpty()).as("the denied commit left nothing").isTrue();
    }
  }

  /**
   * A group's cache is loaded by whichever call needs it first, inside that caller's RPC. The AccessController's
   * read hooks filter a get's cells by the RPC's user, so a load made as that user would cache only the cells it
   * may read, and serve that cache to everyone after. Here the first call after a leader move is a blind write by
   * a user who may look the group up (READ on the leader's table) and write the members' table, but read only one
   * of its families.
   */
  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void aCacheLoadedInsideACallersRpcHoldsTheCellsThatCallerMayNotRead() throws Throwable {
    try (Table leaders = cluster.createTable(LEADERS, new byte[][] {CF}, null);
        Table members = cluster.createTable(MEMBERS, new byte[][] {CF, CF2}, null)) {
      byte[] leader = Bytes.toBytes("leader");
      byte[] member = Bytes.toBytes("member");
      leaders.put(new Put(leader).addColumn(CF, Q, Bytes.toBytes("l0")));
      members.put(new Put(member).addColumn(CF, Q, Bytes.toBytes("f0")).addColumn(CF2, Q, Bytes.toBytes("g0")));
      User owner = User.createUserForTesting(cluster.getConfiguration(), "owner", new String[0]);
      User blind = User.createUserForTesting(cluster.getConfiguration(), "blind", new String[0]);
      for (TableName table : List.of(LEADERS, MEMBERS)) {
        AccessControlClient.grant(cluster.getConnection(), table, "owner", null, null, Permission.Action.READ,
            Permission.Action.WRITE);
      }
      AccessControlClient.grant(cluster.getConnection(), LEADERS, "blind", null, null, Permission.Action.READ);
      AccessControlClient.grant(cluster.getConnection(), MEMBERS, "blind", null, null, Permission.Action.WRITE);
      AccessControlClient.grant(cluster.getConnection(), MEMBERS, "blind", CF, null, Permission.Action.READ);
      Awaitility.await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() ->
          as(owner, MEMBERS, (c, t) -> !t.get(new Get(member)).isEmpty())
          && as(blind, LEADERS, (c, t) -> !t.get(new Get(leader)).isEmpty())
          && as(blind, MEMBERS, (c, t) -> !t.get(new Get(member)).isEmpty())
          && as(blind, MEMBERS, (c, t) -> {
            t.put(new Put(Bytes.toBytes("other")).addColumn(CF, Q, Bytes.toBytes("w")));
            return true;
          }));
      byte[] hidden = as(blind, MEMBERS, (c, t) -> t.get(new Get(member)).getValue(CF2, Q));
      assertThat(hidden).as("premise: HBase hides the other family's cells from this writer").isNull();

      GroupSpec spec = GroupSpec.builder().id("loaded-by-a-blind-writer").leader(LEADERS, leader)
          .member(MEMBERS, member).build();
      GroupId id = as(owner, LEADERS, (c, t) -> c.createGroup(spec).id());
      // the new leader starts with no cache of the group, and hosts the member: its load reads the row itself
      ServerName newLeader = TestRegions.move(cluster, LEADERS, leader);
      if (!TestRegions.hostOf(cluster, MEMBERS, member).equals(newLeader)) {
        assertThat(TestRegions.move(cluster, MEMBERS, member)).isEqualTo(newLeader);
      }

      as(blind, LEADERS, (c, t) -> c.getGroup(id).transact(txn -> {
        txn.put(MEMBERS, new Put(member).addColumn(CF, Q, Bytes.toBytes("f1")));
        return null;
      }));
      String[] seen = as(owner, MEMBERS, (c, t) -> {
        try (Transaction txn = c.getGroup(id).begin()) {
          var row = txn.get(MEMBERS, new Get(member));
          return new String[] {Bytes.toString(row.getValue(CF, Q)), Bytes.toString(row.getValue(CF2, Q))};
        }
      });
      assertThat(seen).as("the member's cells, cached by a load inside the blind writer's commit")
          .containsExactly("f1", "g0");
      as(owner, LEADERS, (c, t) -> {
        c.getGroup(id).delete();
        return null;
      });
      Result after = members.get(new Get(member));
      assertThat(Bytes.toString(after.getValue(CF, Q))).isEqualTo("f1");
      assertThat(Bytes.toString(after.getValue(CF2, Q))).as("the cell the writer could not read").isEqualTo("g0");
    }
  }
}
