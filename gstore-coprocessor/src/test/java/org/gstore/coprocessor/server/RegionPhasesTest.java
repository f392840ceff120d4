package org.gstore.coprocessor.server;

import static org.assertj.core.api.Assertions.assertThat;

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
}
