package org.gstore.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.gstore.client.GStoreClient;
import org.gstore.client.GroupCreationException;
import org.gstore.client.GroupSpec;
import org.gstore.client.KeyGroup;
import org.gstore.testing.GStoreMiniCluster;
import org.gstore.testing.GStoreTables;
import org.gstore.testing.junit.WithMiniCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code gstore scale} in small: what the state tables hold before, during and after many groups. */
@WithMiniCluster(regionServers = 3)
class ScaleRunIT {
  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void manyGroupsHoldEveryRowOnceAndGiveEveryRowBack(GStoreMiniCluster cluster) throws Exception {
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    ScaleRun.Outcome r = new ScaleRun(cluster.getConnection(), new ScaleRun.Settings(60, 5, 4, 1, 40, 1_000),
        new PrintStream(log, true, StandardCharsets.UTF_8), null, true).run();

    assertThat(r.membersHeld()).as("atomic groups over disjoint rows: all joined").isEqualTo(60 * 5);
    assertThat(r.active()[0] - r.before()[0]).as("one group record per active group").isEqualTo(60);
    assertThat(r.active()[1] - r.before()[1]).as("one owner record per member row").isEqualTo(60 * 5);
    assertThat(r.deleted()[1]).as("every row given back").isEqualTo(r.before()[1]);
    // the ended groups stay as tombstones for gstore.group.tombstone.retention.ms (10 minutes here), no more
    assertThat(r.deleted()[0] - r.before()[0]).isBetween(0L, 60L);
    assertThat(log.toString(StandardCharsets.UTF_8)).contains("60 creates in").contains("60 deletes in")
        .contains("group of 40 rows: create");
  }

  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void aRunThatFailsHalfwayGivesBackTheRowsItsGroupsHeld(GStoreMiniCluster cluster) throws Exception {
    // another application holds one of the rows the run will ask for: that create fails, and with it the run
    GStoreTables.ensureServed(cluster.getConnection(), TableDescriptorBuilder.newBuilder(ScaleRun.TABLE)
        .setColumnFamily(ColumnFamilyDescriptorBuilder.of(Players.CF)).build(), Players.splits());
    try (GStoreClient client = GStoreClient.create(cluster.getConnection())) {
      KeyGroup blocker = client.createGroup(GroupSpec.builder()
          .members(ScaleRun.TABLE, List.of(Players.row(0, 200))).build());
      try {
        long ownersBefore = GStoreTables.rowCount(cluster.getConnection(), TableName.valueOf("gstore:owners"));

        assertThatThrownBy(() -> new ScaleRun(cluster.getConnection(), new ScaleRun.Settings(40, 5, 4, 0, 10,
            1_000), new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), null, false).run())
            .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(GroupCreationException.class);

        assertThat(GStoreTables.rowCount(cluster.getConnection(), TableName.valueOf("gstore:owners")))
            .as("only the other application's row is held").isEqualTo(ownersBefore);
      } finally {
        blocker.delete();
      }
    }
  }
}
