package org.gstore.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import org.apache.hadoop.hbase.TableName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class GroupIdTest {
  @Test
  void printableIdRoundTripsForAnyNameAndRowBytes() {
    Random r = new Random(3);
    String[] names = {"game-42", "a@b@c", "with space", "slash/y", "\\x41"};
    for (int i = 0; i < 2_000; i++) {
      byte[] row = new byte[r.nextInt(8)];
      r.nextBytes(row);
      GroupId id = GroupId.of(names[i % names.length], RowKey.of(TableName.valueOf("ns:players"), row));
      assertThat(GroupId.of(id.toString())).as(id.toString()).isEqualTo(id);
    }
  }

  @Test
  void readableRowsStayReadable() {
    GroupId id = GroupId.of("game-42", RowKey.of(TableName.valueOf("players"), "alice@home".getBytes()));
    assertThat(id.toString()).isEqualTo("game-42@players/alice\\x40home");
  }

  @Test
  void malformedIdsAreRejectedWithTheText() {
    for (String bad : new String[] {"no-leader", "@players/x", "g@players", "g@players/\\xZZ", "g@players/\\x4"}) {
      assertThatThrownBy(() -> GroupId.of(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void specNeedsAMemberAndTheLeaderIsOne() {
    assertThatThrownBy(() -> GroupSpec.builder().build()).hasMessageContaining("at least one member");
    GroupSpec spec = GroupSpec.builder().leader(TableName.valueOf("t"), new byte[] {1}).build();
    assertThat(spec.members()).containsExactly(spec.leader());
    assertThat(spec.isAtomic()).isTrue();
  }
}
