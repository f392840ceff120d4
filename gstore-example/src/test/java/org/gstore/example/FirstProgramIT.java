package org.gstore.example;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.gstore.testing.junit.WithMiniCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * How an application tests its G-Store code: {@code @WithMiniCluster} starts HDFS, ZooKeeper and HBase running
 * G-Store in this JVM (once for every test class of the JVM) and hands the test a connection.
 */
@WithMiniCluster(regionServers = 2)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class FirstProgramIT {
  @Test
  void aTradeMovesTheCoinsAndATradeAboveTheBalanceChangesNothing(Connection connection) throws Exception {
    FirstProgram.createTableIfMissing(connection);

    assertThat(FirstProgram.trade(connection, "alice", "bob", 30)).containsExactly(70, 130);

    assertThatThrownBy(() -> FirstProgram.trade(connection, "carol", "dave", 500))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("carol has only 100 coins");
    try (Table players = connection.getTable(FirstProgram.PLAYERS)) {
      for (String player : new String[] {"carol", "dave"}) {
        assertThat(Bytes.toLong(players.get(new Get(Bytes.toBytes(player)))
            .getValue(FirstProgram.CF, FirstProgram.COINS))).as(player).isEqualTo(100);
      }
    }
  }
}
