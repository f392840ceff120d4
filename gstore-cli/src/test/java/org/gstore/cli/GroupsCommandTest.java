package org.gstore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.util.Bytes;
import org.gstore.client.GroupId;
import org.gstore.client.GroupInfo;
import org.gstore.client.RowKey;
import org.junit.jupiter.api.Test;

/** How {@code gstore groups} shows groups: what an operator needs to find the ones left behind. */
class GroupsCommandTest {
  private static final TableName PLAYERS = TableName.valueOf("players");
  private static final Instant NOW = Instant.parse("2026-11-25T12:00:00Z");
  private static final RowKey ALICE = RowKey.of(PLAYERS, Bytes.toBytes("alice"));
  private static final RowKey BOB = RowKey.of(PLAYERS, Bytes.toBytes("bob"));

  private static GroupInfo game(String name, Duration lease, Instant expires, String holder, long unshipped) {
    return new GroupInfo(GroupId.of(name, ALICE), "ACTIVE", Set.of(ALICE, BOB), Set.of(), "rs1,16020,1",
        NOW.minusSeconds(90), lease, expires, holder, unshipped, unshipped, 40, 3);
  }

  @Test
  void theListShowsEachGroupsAgeLeaseHolderAndUnshippedCommits() {
    String list = GroupsCommand.renderList(List.of(
        game("game-1", Duration.ofSeconds(60), NOW.plusSeconds(41), "4242@game-server-7#1", 3),
        game("game-2", Duration.ZERO, null, null, -1)), NOW);
    assertThat(list).contains("game-1").contains("90s").contains("60s, 41s left").contains("4242@game-server-7#1")
        .contains("2 groups");
    assertThat(list.lines().filter(l -> l.contains("game-2")).findFirst().orElseThrow())
        .as("no lease, and a leader that did not answer").contains("none").contains("?");
  }

  @Test
  void oneGroupShowsItsMembersAndALapsedLease() {
    String shown = GroupsCommand.renderOne(game("game-3", Duration.ofSeconds(60), NOW.minusSeconds(1), "x@y#2", 0),
        NOW);
    assertThat(shown).contains("members        2").contains(ALICE.toString()).contains(BOB.toString())
        .contains("60s, lapsed").contains("0 not shipped to HBase");
  }
}
