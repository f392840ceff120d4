package org.gstore.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class StallsTest {
  private static final long S = TimeUnit.SECONDS.toNanos(1);

  @Test
  void eachClientStallsFromTheFaultToTheEndOfItsLongestTimeWithoutSuccess() {
    Stalls stalls = new Stalls();
    for (long t = 0; t <= 100; t++) { // every client succeeds each second, except where a fault stops it
      if (t < 20 || t >= 32) {
        stalls.succeeded("near", true, t * S); // its rows were on the killed server: 12 s
      }
      if (t < 20 || t >= 21) {
        stalls.succeeded("far", true, t * S); // none of its rows was there: 1 s
      }
      if (t < 20 || t >= 28) {
        stalls.succeeded("hbase-0", false, t * S); // 8 s
      }
      if (t < 20 || t >= 24) {
        stalls.succeeded("hbase-1", false, t * S); // 4 s
      }
      if (t < 5) {
        stalls.succeeded("idle", true, t * S); // inactive for more than 10 s before the fault: not counted
      }
    }
    stalls.fault(new Stalls.Injected(Fault.KILL, 19 * S + S / 2, 20 * S, Set.of(21020),
        Map.of("near", Set.of(21010, 21020), "far", Set.of(21010, 21030))));
    stalls.fault(new Stalls.Injected(Fault.BALANCE, 60 * S + S / 2, 60 * S + S / 2, null, Map.of("far", Set.of(21010))));

    List<Stalls.KindStalls> kinds = stalls.summarize(100 * S);

    assertThat(kinds).extracting(Stalls.KindStalls::kind).containsExactly(Fault.KILL, Fault.BALANCE);
    Stalls.KindStalls kill = kinds.get(0);
    assertThat(kill.gstore().clients()).isEqualTo(2);
    assertThat(kill.gstore().max()).isEqualTo(12.5);
    assertThat(kill.hbase().max()).isEqualTo(8.5);
    assertThat(kill.hbase().median()).isEqualTo(4.5);
    assertThat(kill.gstore().stalledShare()).isEqualTo(1.0);
    assertThat(kill.unrelatedMax()).isEqualTo(1.5);
    assertThat(kill.worst()).as("G-Store's longest stall: whose, from when")
        .isEqualTo(new Stalls.Worst("near", 19 * S + S / 2, 12.5));
    assertThat(kill.line()).isEqualTo("stalls fault=kill count=1 gstore-max=12.5 hbase-max=8.5 unrelated-max=1.5");
    Stalls.KindStalls balance = kinds.get(1);
    assertThat(balance.gstore().max()).isEqualTo(0.5);
    assertThat(balance.gstore().stalledShare()).isZero();
    assertThat(balance.line()).as("a fault whose servers are not known has no unrelated clients")
        .endsWith("unrelated-max=-");
    assertThat(Stalls.table(kinds)).hasSize(3).element(1).asString().startsWith("kill");
  }

  @Test
  void aClientThatNeverSucceedsAgainStallsToTheEndOfTheRun() {
    Stalls stalls = new Stalls();
    stalls.succeeded("gone", true, 9 * S);
    stalls.fault(new Stalls.Injected(Fault.MASTER, 10 * S, 11 * S, Set.of(), Map.of("gone", Set.of(21010))));

    Stalls.KindStalls master = stalls.summarize(70 * S).get(0);

    assertThat(master.gstore().max()).isEqualTo(60.0);
    assertThat(master.hbase().clients()).isZero();
    assertThat(master.line()).isEqualTo("stalls fault=master count=1 gstore-max=60.0 hbase-max=- unrelated-max=60.0");
  }

  @Test
  void aClientWhoseCallInFlightSucceedsAfterTheFaultStillStallsOnItsNextCall() {
    Stalls stalls = new Stalls();
    for (long t = 0; t < 20; t++) {
      stalls.succeeded("hbase-0", false, t * S);
    }
    stalls.succeeded("hbase-0", false, 20 * S + S / 10); // a call to a live server, in flight as the kill began
    stalls.succeeded("hbase-0", false, 48 * S); // the next call's row was on the killed server: 28 s
    for (long t = 49; t < 100; t++) {
      if (t < 60 || t >= 80) { // 60 to 80: a gap that began after the fault ended, not this fault's
        stalls.succeeded("hbase-0", false, t * S);
      }
    }
    for (long t = 0; t < 100; t++) {
      if (t <= 30 || t >= 50) { // stopped 10 s into the fault, by something else: not this fault's stall
        stalls.succeeded("hbase-1", false, t * S);
      }
    }
    stalls.fault(new Stalls.Injected(Fault.KILL, 20 * S, 50 * S, Set.of(21020), Map.of()));

    Stalls.KindStalls kill = stalls.summarize(100 * S).get(0);

    assertThat(kill.hbase().max()).isEqualTo(27.9, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(kill.hbase().median()).as("hbase-1: a second between successes, as far as the fault reaches")
        .isEqualTo(1.0);
  }
}
