package org.gstore.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.security.PrivilegedExceptionAction;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * With HBase's AccessController on, G-Store's endpoints act for their caller: grouping rows needs READ and WRITE
 * on their table, reading in a transaction needs READ, committing needs WRITE, as the same data would through
 * plain HBase. Runs its own cluster with security on (simple authentication carries the user names).
 */
class AuthorizationIT {
  private static final byte[] CF = Bytes.toBytes("f");
  private static final byte[] Q = Bytes.toBytes("q");
  private static final TableName ROWS = TableName.valueOf("secured_rows");

  /** Runs {@code action} as {@code user} with a G-Store client of that user's own connection. */
  private interface AsUser<T> {
    T run(GStoreClient client, Table table) throws Exception;
  }

  private static <T> T as(GStoreMiniCluster cluster, User user, AsUser<T> action) throws Exception {
    return user.runAs((PrivilegedExceptionAction<T>) () -> {
      try (Connection connection = ConnectionFactory.createConnection(cluster.getConfiguration(), user);
          GStoreClient client = GStoreClient.create(connection); Table table = connection.getTable(ROWS)) {
        return action.run(client, table);
      }
    });
  }

  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void groupingReadingAndCommittingNeedTheCallersOwnHBasePermissions() throws Throwable {
    String accessController = AccessController.class.getName();
    // the mini cluster runs its region servers as <user>.hfs.<n>: they are HBase's service users, so superusers
    String me = User.getCurrent().getShortName();
    Map<String, String> secure = Map.of(
        "hbase.superuser", me + "," + me + ".hfs.0," + me + ".hfs.1," + me + ".hfs.2",
        "hbase.security.authorization", "true",
        CoprocessorHost.MASTER_COPROCESSOR_CONF_KEY, accessController + "," + GStoreMasterObserver.class.getName(),
        CoprocessorHost.REGION_COPROCESSOR_CONF_KEY, accessController,
        CoprocessorHost.REGIONSERVER_COPROCESSOR_CONF_KEY, accessController);
    try (GStoreMiniCluster cluster = GStoreMiniCluster.start(1, secure)) {
      cluster.getTestingUtility().waitTableAvailable(TableName.valueOf("hbase:acl"));
      Table admin = cluster.createTable(ROWS, new byte[][] {CF}, null);
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
          as(cluster, reader, (c, t) -> !t.get(new Get(leader)).isEmpty())
          && as(cluster, writer, (c, t) -> {
            t.put(new Put(Bytes.toBytes("row-9")).addColumn(CF, Q, Bytes.toBytes("w")));
            return true;
          }));

      GroupSpec spec = GroupSpec.builder().id("secured").leader(ROWS, leader).member(ROWS, member).build();
      assertThatThrownBy(() -> as(cluster, stranger, (c, t) -> c.createGroup(spec)))
          .as("no permission at all").isInstanceOf(AccessDeniedException.class).hasMessageContaining("stranger");
      assertThatThrownBy(() -> as(cluster, reader, (c, t) -> c.createGroup(spec)))
          .as("grouping keeps others from writing: it needs WRITE").isInstanceOf(AccessDeniedException.class)
          .hasMessageContaining("WRITE");
      assertThat(StateTablesView.isGrouped(cluster, ROWS, leader)).as("a denied create holds nothing").isFalse();

      GroupId id = as(cluster, writer, (c, t) -> {
        KeyGroup g = c.createGroup(spec);
        g.transact(txn -> {
          txn.put(ROWS, new Put(leader).addColumn(CF, Q, Bytes.toBytes("v1")));
          return null;
        });
        return g.id();
      });

      String seen = as(cluster, reader, (c, t) -> {
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

      assertThatThrownBy(() -> as(cluster, stranger, (c, t) -> c.getGroup(id)))
          .isInstanceOf(AccessDeniedException.class);
      as(cluster, writer, (c, t) -> {
        c.getGroup(id).delete();
        return null;
      });
      assertThat(Bytes.toString(admin.get(new Get(leader)).getValue(CF, Q))).isEqualTo("v1");
      assertThat(admin.get(new Get(member)).isEmpty()).as("the denied commit left nothing").isTrue();
      admin.close();
    }
  }
}
