package org.gstore.coprocessor.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The life of a region on one server, and the races with a close that the phases settle. */
class RegionPhasesTest {
  private final RegionPhases phases = new RegionPhases();

  @Test
  void aRegionTakesWritesOnceFencedAndIsServedOnlyAfterThat() {
    phases.opened("r");
    assertThat(phases.isOpen("r")).isTrue();
    assertThat(phases.takesWrites("r")).as("its fence is not loaded yet").isFalse();
    assertThat(phases.serving("r")).as("not before its fence").isFalse();

    assertThat(phases.fenced("r")).isTrue();
    assertThat(phases.takesWrites("r")).isTrue();
    assertThat(phases.fenced("r")).as("once").isFalse();
    assertThat(phases.serving("r")).isTrue();
    assertThat(phases.isOpen("r")).isTrue();
  }

  @Test
  void aLoadThatFinishesAfterTheCloseBeganIsRefused() {
    phases.opened("r");
    assertThat(phases.closing("r")).isTrue();
    assertThat(phases.fenced("r")).isFalse();
    assertThat(phases.takesWrites("r")).as("never fenced here").isFalse();
    assertThat(phases.isOpen("r")).isFalse();

    phases.opened("s");
    phases.fenced("s");
    phases.closing("s");
    assertThat(phases.serving("s")).as("a recovery that finishes after the close began").isFalse();
  }

  @Test
  void aClosingRegionStillTakesTheShippersWritesUntilItsCloseFinishes() {
    phases.opened("r");
    phases.fenced("r");
    phases.serving("r");
    assertThat(phases.closing("r")).isTrue();
    assertThat(phases.takesWrites("r")).isTrue();
    assertThat(phases.isOpen("r")).isFalse();

    phases.closed("r");
    assertThat(phases.takesWrites("r")).isFalse();
  }

  @Test
  void aCloseActsOnceAndNeverOnARegionThatIsNotOpen() {
    assertThat(phases.closing("unknown")).isFalse();
    phases.opened("r");
    assertThat(phases.closing("r")).isTrue();
    assertThat(phases.closing("r")).as("the coprocessor's stop after its preClose").isFalse();
  }

  @Test
  void aRegionReopenedHereBeginsAnewAndDaughtersAreRegionsOfTheirOwn() {
    phases.opened("r");
    phases.fenced("r");
    phases.closing("r");
    phases.closed("r");
    phases.opened("r");
    assertThat(phases.takesWrites("r")).isFalse();

    phases.opened("daughter-a");
    phases.fenced("daughter-a");
    assertThat(phases.takesWrites("daughter-b")).isFalse();
  }

  @Test
  void aCallWaitingForItsRegionToLoadGoesOnTheMomentItIsFenced() throws Exception {
    phases.opened("r");
    long began = System.nanoTime();
    CompletableFuture<Boolean> call = CompletableFuture.supplyAsync(() -> phases.await("r", phases::takesWrites,
        60_000));

    org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() -> phases.callsWaiting() == 1);
    phases.fenced("r");

    assertThat(call.get(10, TimeUnit.SECONDS)).isTrue();
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began)).as("woken, not timed out").isLessThan(10_000);
  }

  @Test
  void aCallIsRefusedAfterItsWaitWhileTheRegionStillLoadsAndAtOnceWhenItCloses() throws Exception {
    phases.opened("r");
    long began = System.nanoTime();
    assertThat(phases.await("r", phases::takesWrites, 300)).isFalse();
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began)).isGreaterThanOrEqualTo(290);

    phases.fenced("r");
    phases.closing("r");
    began = System.nanoTime();
    assertThat(phases.await("r", r -> false, 60_000)).as("a closing region loads no more").isFalse();
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began)).isLessThan(10_000);
    assertThat(phases.await("gone", r -> false, 60_000)).as("nor does one not open here").isFalse();
  }

  @Test
  void atMostEightCallsWaitAtOnceAndTheRestAreAnsweredAtOnce() throws Exception {
    phases.opened("r");
    CountDownLatch release = new CountDownLatch(1);
    List<CompletableFuture<Boolean>> waiting = new ArrayList<>();
    for (int i = 0; i < RegionPhases.MAX_WAITING_CALLS; i++) {
      waiting.add(CompletableFuture.supplyAsync(() -> phases.await("r", r -> release.getCount() == 0, 60_000),
          java.util.concurrent.Executors.newSingleThreadExecutor()));
    }
    org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
        .until(() -> phases.callsWaiting() == RegionPhases.MAX_WAITING_CALLS);
    long began = System.nanoTime();
    assertThat(phases.await("r", r -> false, 60_000)).isFalse();
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began)).as("no slot: answered at once")
        .isLessThan(5_000);

    release.countDown();
    phases.fenced("r");
    for (CompletableFuture<Boolean> w : waiting) {
      assertThat(w.get(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void aCallWaitingForItsRegionToBeReadyIsNotRefusedInTheMomentBetweenServingAndReady() throws Exception {
    phases.opened("r");
    phases.fenced("r");
    java.util.concurrent.atomic.AtomicBoolean ready = new java.util.concurrent.atomic.AtomicBoolean();
    CompletableFuture<Boolean> call = CompletableFuture.supplyAsync(() -> phases.await("r", r -> ready.get(),
        60_000));
    org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() -> phases.callsWaiting() == 1);

    phases.serving("r"); // HostedRegions#markReady: SERVING first, then the region in its ready map
    org.awaitility.Awaitility.await().during(java.time.Duration.ofMillis(300)).atMost(java.time.Duration.ofSeconds(5))
        .until(() -> !call.isDone()); // still waiting: not ready yet
    ready.set(true);
    phases.changed();

    assertThat(call.get(10, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void noCallWaitsOnceGStoreStopsHere() throws Exception {
    phases.opened("r");
    CompletableFuture<Boolean> call = CompletableFuture.supplyAsync(() -> phases.await("r", phases::takesWrites,
        60_000));
    org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() -> phases.callsWaiting() == 1);

    phases.stopAll(); // the region server aborts: its regions close without changing phase

    assertThat(call.get(10, TimeUnit.SECONDS)).isFalse();
    assertThat(phases.await("r", phases::takesWrites, 60_000)).isFalse();
  }
}
