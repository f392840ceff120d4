package org.gstore.coprocessor.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.gstore.common.protocol.CreateMode;
import org.gstore.common.protocol.GroupId;
import org.gstore.common.protocol.GroupPhase;
import org.gstore.common.protocol.GroupRecord;
import org.gstore.common.protocol.GroupRef;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.MemberState;
import org.gstore.common.protocol.NodeId;
import org.gstore.common.protocol.OwnerRecord;
import org.gstore.common.protocol.StateChange;
import org.gstore.common.protocol.Uid;
import org.gstore.common.protocol.log.LoggedChange;
import org.gstore.common.protocol.log.VersionClock;
import org.gstore.testing.GStoreMiniCluster;
import org.gstore.testing.junit.WithMiniCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Protocol state cells carry versions on the real state tables: a write that lands late with an older version (a
 * dead server's batch, a record replayed twice) never replaces newer state nor brings a released row back, even
 * after a major compaction, and a load observes the versions it read, release markers included. In the
 * coprocessor's package to reach {@link StateTables} as the server uses it.
 */
@WithMiniCluster(regionServers = 1)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class StateVersionsIT {
  private static final String TABLE = "state_versions";
  private static final NodeId NODE = new NodeId("zombie");

  @Test
  void aLateOlderWriteNeitherReplacesNewerStateNorRevivesAReleasedRow(GStoreMiniCluster cluster) throws Exception {
    StateTables tables = new StateTables(cluster.getConnection(), new VersionClock());
    tables.ensureExist();
    long base = System.currentTimeMillis();
    Key released = Key.of(TABLE, "released");
    Key leader = Key.of(TABLE, "leader");
    GroupRef group = new GroupRef(new GroupId("g", leader), new Uid(NODE, 1));
    OwnerRecord joining = new OwnerRecord(released, group, new Uid(NODE, 2), OwnerRecord.State.JOINING);
    GroupRecord creating = record(group, GroupPhase.CREATING);
    GroupRecord active = record(group, GroupPhase.ACTIVE);

    tables.writeVersioned(List.of(new LoggedChange(new StateChange.PutOwner(joining), base + 1),
        new LoggedChange(new StateChange.PutGroup(creating), base + 1)));
    tables.writeVersioned(List.of(new LoggedChange(new StateChange.RemoveOwner(released), base + 2),
        new LoggedChange(new StateChange.PutGroup(active), base + 3)));
    majorCompact(cluster, StateTables.OWNERS);
    // the zombie's batch lands now: its versions are older than what the tables hold
    tables.writeVersioned(List.of(new LoggedChange(new StateChange.PutOwner(joining), base + 1),
        new LoggedChange(new StateChange.PutGroup(creating), base + 1)));

    VersionClock loader = new VersionClock();
    StateTables.Loaded loaded = new StateTables(cluster.getConnection(), loader)
        .load(TABLE, new byte[0], new byte[0]);
    assertThat(loaded.owners()).as("the released row stays released").isEmpty();
    assertThat(loaded.groups()).as("the newer group record stays").containsExactly(active);
    assertThat(loader.next(0)).as("the loader writes above every version it read").isGreaterThan(base + 3);
  }

  @Test
  void aLoadObservesTheVersionOfAReleaseItDoesNotReturn(GStoreMiniCluster cluster) throws Exception {
    StateTables tables = new StateTables(cluster.getConnection(), new VersionClock());
    tables.ensureExist();
    Key key = Key.of(TABLE + "_marker", "row");
    long ahead = System.currentTimeMillis() + 60_000; // written by a server whose clock runs a minute ahead
    tables.writeVersioned(List.of(new LoggedChange(new StateChange.RemoveOwner(key), ahead)));

    VersionClock loader = new VersionClock();
    StateTables.Loaded loaded = new StateTables(cluster.getConnection(), loader)
        .load(TABLE + "_marker", new byte[0], new byte[0]);

    assertThat(loaded.owners()).isEmpty();
    assertThat(loader.next(System.currentTimeMillis()))
        .as("a JOINING record written next must not hide behind the release").isGreaterThan(ahead);
  }

  private static GroupRecord record(GroupRef group, GroupPhase phase) {
    TreeMap<Key, MemberState> members = new TreeMap<>();
    members.put(group.leader(), phase == GroupPhase.ACTIVE ? MemberState.joined(new Uid(NODE, 3))
        : MemberState.PENDING);
    return new GroupRecord(group, CreateMode.ATOMIC, phase, "request", members, null, 0);
  }

  private static void majorCompact(GStoreMiniCluster cluster, TableName table) throws Exception {
    try (Admin admin = cluster.getConnection().getAdmin()) {
      admin.flush(table);
    }
    for (HRegion region : cluster.getTestingUtility().getHBaseCluster().getRegions(table)) {
      region.compact(true);
    }
  }
}
