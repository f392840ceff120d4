package org.gstore.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** The YCSB core mixes' operations are those of YCSB's own workloads A, B and F. */
class YcsbMixTest {
  private static final int DRAWS = 100_000;

  @Test
  void workloadFIsHalfReadsAndHalfReadModifyWritesAndNeverABlindWrite() {
    Counts f = Counts.of(YcsbWorkload.Mix.of("ycsb-f"));
    assertThat(f.blindWrites).isZero();
    assertThat(f.readsOnly).isBetween(DRAWS * 48 / 100, DRAWS * 52 / 100);
    assertThat(f.readModifyWrites).isBetween(DRAWS * 48 / 100, DRAWS * 52 / 100);
  }

  @Test
  void workloadsAAndBReadOrUpdateARowNeverBoth() {
    Counts a = Counts.of(YcsbWorkload.Mix.of("ycsb-a"));
    assertThat(a.readModifyWrites).isZero();
    assertThat(a.readsOnly).isBetween(DRAWS * 48 / 100, DRAWS * 52 / 100);
    Counts b = Counts.of(YcsbWorkload.Mix.of("ycsb-b"));
    assertThat(b.readModifyWrites).isZero();
    assertThat(b.blindWrites).isBetween(DRAWS * 4 / 100, DRAWS * 6 / 100);
  }

  @Test
  void anUnknownMixIsRefusedByName() {
    assertThatThrownBy(() -> YcsbWorkload.Mix.of("ycsb-z")).hasMessageContaining("ycsb-z");
  }

  /** How often a mix's operations read only, write only, or read and then write their row. */
  private record Counts(int readsOnly, int blindWrites, int readModifyWrites) {
    static Counts of(YcsbWorkload.Mix mix) {
      Random random = new Random(7);
      int readsOnly = 0;
      int blindWrites = 0;
      int readModifyWrites = 0;
      for (int i = 0; i < DRAWS; i++) {
        double draw = random.nextDouble();
        boolean reads = mix.reads(draw);
        boolean writes = mix.writes(draw);
        assertThat(reads || writes).as("an operation does something").isTrue();
        if (reads && writes) {
          readModifyWrites++;
        } else if (writes) {
          blindWrites++;
        } else {
          readsOnly++;
        }
      }
      return new Counts(readsOnly, blindWrites, readModifyWrites);
    }
  }
}
