package org.gstore.coprocessor.txn;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.gstore.common.protocol.GroupId;
import org.gstore.common.protocol.GroupRef;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.NodeId;
import org.gstore.common.protocol.Uid;
import org.gstore.common.wire.Columns;
import org.junit.jupiter.api.Test;
import org.openjdk.jol.info.GraphLayout;

/**
 * What a group costs a leader's heap, measured by walking the cache's object graph (JOL), so that the sizing in
 * docs/operations.md is a measurement, and a change that makes a group fatter shows up here. The bounds are the
 * figures the docs give, with a little room; the measured values are printed.
 */
class GroupCacheFootprintTest {
  static {
    System.setProperty("jol.magicFieldOffset", "true"); // records' field offsets on JDK 17, before JOL starts
  }

  private static final GroupRef GROUP = new GroupRef(new GroupId("game-1", Key.of("players", "leader")),
      new Uid(new NodeId("rs1"), 1));
  private static final ByteString SCORE = Columns.key(ByteString.copyFromUtf8("p"), ByteString.copyFromUtf8("score"));

  /** K member rows like the gaming benchmark's: a 9-byte key in table "players", one 8-byte column. */
  private static GroupCache cacheOf(int k) {
    Map<Key, RowState> rows = new LinkedHashMap<>();
    for (int i = 0; i < k; i++) {
      rows.put(Key.of("players", String.format("user%05d", i)),
          new RowState(0, Map.of(SCORE, ByteString.copyFrom(new byte[8]))));
    }
    return new GroupCache(GROUP, 1, rows, 1, 60_000);
  }

  private static long bytes(Object o) {
    return GraphLayout.parseInstance(o).totalSize();
  }

  @Test
  void aRememberedOutcomeTakesAboutTwoHundredBytes() {
    GroupCache cache = cacheOf(1);
    long empty = bytes(cache);
    int n = 10_000; // GroupCache.OUTCOMES_REMEMBERED: what a group keeps after as many commits
    for (int i = 0; i < n; i++) {
      cache.remember(UUID.randomUUID().toString(), CommitOutcome.committed(1_000 + i, 1)); // the client's ids
    }
    double perOutcome = (bytes(cache) - empty) / (double) n;
    System.out.printf("heap per remembered outcome: %.0f bytes (%d outcomes: %.2f MB per group)%n", perOutcome, n,
        perOutcome * n / 1e6);
    assertThat(perOutcome).isBetween(100.0, 220.0);
  }

  @Test
  void aCachedMemberRowTakesAFewHundredBytes() {
    long one = bytes(cacheOf(1));
    long fifty = bytes(cacheOf(51));
    double perRow = (fifty - one) / 50.0;
    System.out.printf("heap per cached member row (one 8-byte column): %.0f bytes; a group of 50: %.1f KB%n",
        perRow, fifty / 1e3);
    assertThat(perRow).isBetween(100.0, 600.0);
  }
}
