package org.gstore.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PersistenceTrackerTest {
  private final PersistenceTracker tracker = new PersistenceTracker(10_000, 1_000);

  @Test
  void persistedThroughIsTheLowestClaimOfTheRegisteredServers() {
    tracker.heartbeat(Set.of("a", "b", "no-gstore"), Map.of("a", Map.of("L", 7L), "b", Map.of("L", 4L)), 0);
    assertThat(tracker.persistedThrough("L")).isEqualTo(4);
    assertThat(tracker.persistedThrough("other-log")).as("nothing claimed for it").isEqualTo(-1);
  }

  @Test
  void aRegisteredServerWithoutAClaimYetHoldsEverythingBack() {
    tracker.heartbeat(Set.of("a", "new"), Map.of("a", Map.of("L", 7L), "new", Map.of()), 0);
    assertThat(tracker.persistedThrough("L")).isEqualTo(-1);
  }

  @Test
  void aDeathIsReportedOnceAndItsLastClaimHoldsBackUntilItsZombieWindowCloses() {
    tracker.heartbeat(Set.of("a", "b"), Map.of("a", Map.of("L", 9L), "b", Map.of("L", 3L)), 0);
    PersistenceTracker.Heartbeat hb = tracker.heartbeat(Set.of("a"),
        Map.of("a", Map.of("L", 9L), "b", Map.of("L", 5L)), 100);
    assertThat(hb.deaths()).singleElement().satisfies(d -> {
      assertThat(d.server()).isEqualTo("b");
      assertThat(d.persistedThrough("L")).isEqualTo(5);
    });
    assertThat(hb.zombieWindowsClosed()).isEmpty();
    // its zombie may still acknowledge what is shipped now: nothing above its last claim may be forgotten
    hb = tracker.heartbeat(Set.of("a"), Map.of("a", Map.of("L", 12L), "b", Map.of("L", 5L)), 600);
    assertThat(hb.deaths()).as("its claim is still published, but it is dead").isEmpty();
    assertThat(tracker.persistedThrough("L")).isEqualTo(5);

    hb = tracker.heartbeat(Set.of("a"), Map.of("a", Map.of("L", 12L), "b", Map.of("L", 5L)), 1_100);
    assertThat(hb.zombieWindowsClosed()).singleElement().satisfies(d -> assertThat(d.persistedThrough("L"))
        .as("ship again above it once more").isEqualTo(5));
    assertThat(tracker.persistedThrough("L")).isEqualTo(12);
    hb = tracker.heartbeat(Set.of("a"), Map.of("a", Map.of("L", 12L), "b", Map.of("L", 5L)), 1_200);
    assertThat(hb.deaths()).isEmpty();
    assertThat(hb.zombieWindowsClosed()).isEmpty();
  }

  @Test
  void heartbeatsFurtherApartThanTheClaimRetentionAskToShipEverythingAgain() {
    assertThat(tracker.heartbeat(Set.of("a"), Map.of("a", Map.of()), 0).shipEverythingAgain()).isFalse();
    assertThat(tracker.heartbeat(Set.of("a"), Map.of("a", Map.of()), 5_000).shipEverythingAgain()).isFalse();
    assertThat(tracker.heartbeat(Set.of("a"), Map.of("a", Map.of()), 20_000).shipEverythingAgain()).isTrue();
  }

  @Test
  void aLiveServerThatUnregisteredNoLongerHoldsAnythingBack() {
    tracker.heartbeat(Set.of("a", "stopped"), Map.of("a", Map.of("L", 9L), "stopped", Map.of("L", 2L)), 0);
    assertThat(tracker.persistedThrough("L")).isEqualTo(2);
    // G-Store stopped cleanly on "stopped" (its regions flushed); the region server itself runs on
    PersistenceTracker.Heartbeat hb = tracker.heartbeat(Set.of("a", "stopped"), Map.of("a", Map.of("L", 9L)), 100);
    assertThat(hb.deaths()).isEmpty();
    assertThat(tracker.persistedThrough("L")).isEqualTo(9);
    // G-Store starts there again: it counts again, from its new empty claim
    tracker.heartbeat(Set.of("a", "stopped"), Map.of("a", Map.of("L", 9L), "stopped", Map.of()), 200);
    assertThat(tracker.persistedThrough("L")).isEqualTo(-1);
  }

  @Test
  void aServerThatUnregisteredAndStoppedBeforeTheNextHeartbeatIsNoDeath() {
    tracker.heartbeat(Set.of("a", "stopped"), Map.of("a", Map.of("L", 9L), "stopped", Map.of("L", 2L)), 0);
    // a graceful stop: G-Store withdrew its claim (every region closed, flushed), then the region server exited,
    // both between two heartbeats of this leader
    PersistenceTracker.Heartbeat hb = tracker.heartbeat(Set.of("a"), Map.of("a", Map.of("L", 9L)), 100);
    assertThat(hb.deaths()).as("nothing to ship again: it persisted all it was shipped").isEmpty();
    assertThat(tracker.persistedThrough("L")).as("no zombie window holds it back").isEqualTo(9);
    assertThat(tracker.heartbeat(Set.of("a"), Map.of("a", Map.of("L", 9L)), 5_000).zombieWindowsClosed()).isEmpty();
  }
}
