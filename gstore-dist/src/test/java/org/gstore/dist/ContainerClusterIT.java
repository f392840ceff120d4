package org.gstore.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.gstore.testing.GStoreTables;
import org.gstore.client.GStoreClient;
import org.gstore.client.GroupSpec;
import org.gstore.client.KeyGroup;
import org.gstore.common.RowGroupedException;
import org.gstore.testing.process.GStoreContainerCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The Docker cluster (docker/compose.yml's, started container by container from the local gstore:latest image):
 * a group is created over rows on every region server, transactions move money inside it while plain writes to
 * its rows are fenced off, and after the delete plain HBase reads see every committed transfer. Runs in the
 * 'docker' profile, which turns on where a Docker engine's socket exists.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class ContainerClusterIT {
  private static final TableName ACCOUNTS = TableName.valueOf("container_accounts");
  private static final byte[] CF = Bytes.toBytes("a");
  private static final byte[] BALANCE = Bytes.toBytes("balance");
  private static GStoreContainerCluster cluster;

  @BeforeAll
  static void start() throws Exception {
    cluster = GStoreContainerCluster.start(3, 25_000);
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void groupsAndTransactionsWorkAcrossContainers() throws Exception {
    try (Connection connection = ConnectionFactory.createConnection(cluster.configuration());
        GStoreClient client = GStoreClient.create(connection)) {
      byte[][] splits = {Bytes.toBytes("r3"), Bytes.toBytes("r6")};
      GStoreTables.ensureServed(connection, TableDescriptorBuilder.newBuilder(ACCOUNTS)
          .setColumnFamily(ColumnFamilyDescriptorBuilder.of(CF)).build(), splits);
      assertThat(client.servesTable(ACCOUNTS)).isTrue();
      List<byte[]> rows = List.of(Bytes.toBytes("r1"), Bytes.toBytes("r4"), Bytes.toBytes("r8"));
      try (Table table = connection.getTable(ACCOUNTS)) {
        for (byte[] row : rows) {
          table.put(new Put(row).addColumn(CF, BALANCE, Bytes.toBytes(100L)));
        }
        try (Admin admin = connection.getAdmin()) {
          assertThat(admin.getRegionServers()).hasSize(3);
        }
        KeyGroup group = client.createGroup(GroupSpec.builder().id("across-containers").leader(ACCOUNTS, rows.get(0))
            .members(ACCOUNTS, rows).build());
        assertThat(group.members()).hasSize(3);
        assertThat(group.refused()).isEmpty();

        for (int i = 0; i < 30; i++) {
          byte[] from = rows.get(i % 3);
          byte[] to = rows.get((i + 1) % 3);
          group.transact(txn -> {
            long a = Bytes.toLong(txn.get(ACCOUNTS, new Get(from)).getValue(CF, BALANCE));
            long b = Bytes.toLong(txn.get(ACCOUNTS, new Get(to)).getValue(CF, BALANCE));
            txn.put(ACCOUNTS, new Put(from).addColumn(CF, BALANCE, Bytes.toBytes(a - 7)));
            txn.put(ACCOUNTS, new Put(to).addColumn(CF, BALANCE, Bytes.toBytes(b + 7)));
            return null;
          });
        }
        long total = group.transact(txn -> {
          long sum = 0;
          for (byte[] row : rows) {
            sum += Bytes.toLong(txn.get(ACCOUNTS, new Get(row)).getValue(CF, BALANCE));
          }
          return sum;
        });
        assertThat(total).isEqualTo(300);
        assertThatThrownBy(() -> table.put(new Put(rows.get(2)).addColumn(CF, BALANCE, Bytes.toBytes(0L))))
            .isInstanceOf(RowGroupedException.class);

        group.delete();
        long[] balances = new long[3];
        for (int i = 0; i < 3; i++) {
          Result r = table.get(new Get(rows.get(i)));
          balances[i] = Bytes.toLong(r.getValue(CF, BALANCE));
        }
        // 30 transfers of 7 around the ring: each account gave 10 and received 10
        assertThat(balances).containsExactly(100, 100, 100);
        table.put(new Put(rows.get(2)).addColumn(CF, BALANCE, Bytes.toBytes(0L))); // free again
      }
    }
  }
}
