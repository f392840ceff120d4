package org.gstore.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.security.UserGroupInformation;
import org.gstore.client.GStoreClient;
import org.gstore.client.GroupSpec;
import org.gstore.client.KeyGroup;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** G-Store on a Kerberized cluster. */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class SecureClusterIT {
  private static final byte[] CF = Bytes.toBytes("f");
  private static GStoreMiniCluster cluster;

  @BeforeAll
  static void startSecureCluster() throws Exception {
    cluster = GStoreMiniCluster.startSecure(2, Map.of());
  }

  @AfterAll
  static void stop() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void theServicesAuthenticateWithKerberos() throws Exception {
    assertThat(UserGroupInformation.isSecurityEnabled()).isTrue();
    TableName name = TableName.valueOf("secure_rows");
    cluster.createTable(name, new byte[][] {CF}, TestRows.splits(4)).close();
    try (GStoreClient client = GStoreClient.create(cluster.getConnection())) {
      KeyGroup group = client.createGroup(GroupSpec.builder().id("g").members(name,
          java.util.List.of(TestRows.row(0), TestRows.row(5))).build());
      group.delete();
    }
  }
}
