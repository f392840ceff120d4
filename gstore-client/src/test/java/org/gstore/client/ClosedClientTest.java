package org.gstore.client;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Proxy;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

/** A closed client renews no lease, so it creates no group: the group would lapse a lease after its creation. */
class ClosedClientTest {
  @Test
  void aClosedClientCreatesNoGroupAndSaysWhy() throws Exception {
    Connection hbase = (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(),
        new Class<?>[] {Connection.class},
        (proxy, method, args) -> method.getName().equals("getConfiguration") ? new Configuration(false) : null);
    GStoreClient client = GStoreClient.create(hbase);
    client.close();

    assertThatThrownBy(() -> client.createGroup(GroupSpec.builder()
        .members(TableName.valueOf("players"), List.of(Bytes.toBytes("alice"))).build()))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
  }
}
