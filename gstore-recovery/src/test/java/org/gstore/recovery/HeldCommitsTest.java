package org.gstore.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.OptionalLong;
import org.gstore.common.protocol.GroupId;
import org.gstore.common.protocol.GroupRef;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.NodeId;
import org.gstore.common.protocol.Uid;
import org.junit.jupiter.api.Test;

class HeldCommitsTest {
  private static final GroupRef GAME = group("game");
  private static final GroupRef OTHER = group("other");

  @Test
  void theOldestHeldCommitMovesUpAsCommitsArePersisted() {
    HeldCommits held = new HeldCommits();
    Shipment first = commit(GAME, 10);
    Shipment second = commit(GAME, 20);
    held.add(second);
    held.add(first);
    held.add(commit(OTHER, 5));
    assertThat(held.oldest(GAME)).hasValue(10);
    assertThat(held.count(GAME)).isEqualTo(2);
    assertThat(held.count()).isEqualTo(3);

    held.remove(first);
    assertThat(held.oldest(GAME)).hasValue(20);
    held.remove(second);
    assertThat(held.oldest(GAME)).isEqualTo(OptionalLong.empty());
    assertThat(held.count(GAME)).isZero();
    assertThat(held.count()).isEqualTo(1);
  }

  @Test
  void removingACommitNotHeldChangesNothingAndOneHeldTwiceStaysUntilRemovedTwice() {
    HeldCommits held = new HeldCommits();
    Shipment c = commit(GAME, 10);
    held.remove(c);
    assertThat(held.count()).isZero();
    held.add(c);
    held.add(c);
    held.remove(c);
    assertThat(held.oldest(GAME)).hasValue(10);
    held.remove(c);
    held.remove(c);
    assertThat(held.count()).isZero();
    assertThat(held.oldest(GAME)).isEmpty();
  }

  private static Shipment commit(GroupRef group, long commitTs) {
    return new Shipment(group, commitTs, "t" + commitTs, List.of(), new WalPosition(0, commitTs));
  }

  private static GroupRef group(String name) {
    return new GroupRef(new GroupId(name, Key.of("t", name)), new Uid(new NodeId("n"), 1));
  }
}
