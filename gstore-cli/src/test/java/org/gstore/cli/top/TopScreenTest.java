package org.gstore.cli.top;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class TopScreenTest {
  private static final Frame FRAME = new Frame(Instant.parse("2026-12-07T10:00:00Z"), List.of(
      new Frame.Server("rs1,16020,1", "alive", 2, 150.5, 1.2, 9.8, 40, 3, 12, 5, 900, 880, 3 * 1048576L,
          List.of()),
      new Frame.Server("rs2,16020,1", "dead, WAL being replayed", Double.NaN, Double.NaN, Double.NaN, Double.NaN,
          Double.NaN, Double.NaN, Double.NaN, Double.NaN, 700, 650, 1048576L, List.of("SHIPPING_BLOCKED"))),
      List.of(
          new Frame.Group("game-a@players/a", "rs1,16020,1", "ACTIVE", 20, 500, 100.0, 7,
              Duration.ofSeconds(25), 3),
          new Frame.Group("game-b@players/b", "rs1,16020,1", "ACTIVE", 4, 900, 50.5, 1, null, 0),
          new Frame.Group("doc-c@docs/c", "rs2,16020,1", "DELETING", 12, -1, Double.NaN, -1, Duration.ofSeconds(-3),
              -1)),
      List.of("rs2,16020,1 metrics: HTTP 401 from http://rs2:16030/prometheus"));

  @Test
  void aFrameShowsEveryServersRatesThresholdsAndAlertsAndTheGroupsBusiestFirst() {
    List<String> lines = new TopScreen().render(FRAME, 200, 40, null);

    assertThat(lines.get(0)).contains("2 region servers, 3 groups (3 shown), 150.5 commits/s")
        .contains("sort: commits/s descending");
    assertThat(lines.get(1)).isEqualTo(TopScreen.KEYS);
    assertThat(lines).anySatisfy(l -> assertThat(l).startsWith("rs1,16020,1").contains("150.5").contains("9.8")
        .contains("900").contains("880").contains("3.0"));
    assertThat(lines).anySatisfy(l -> assertThat(l).startsWith("rs2,16020,1")
        .contains("dead, WAL being replayed").endsWith("SHIPPING_BLOCKED"));
    assertThat(groupOrder(lines)).containsExactly("game-a", "game-b", "doc-c");
    assertThat(lines).anySatisfy(l -> assertThat(l).startsWith("doc-c").contains("lapsed"));
    assertThat(lines).anySatisfy(l -> assertThat(l).startsWith("game-a").contains("25.0s"));
    assertThat(lines.get(lines.size() - 1)).isEqualTo("! rs2,16020,1 metrics: HTTP 401 from"
        + " http://rs2:16030/prometheus");
  }

  @Test
  void theSortKeyCyclesAndReversesAndTheFilterNarrowsTheGroups() {
    TopScreen screen = new TopScreen();
    screen.nextSort();
    assertThat(screen.sort()).isEqualTo(TopScreen.Sort.COMMITS);
    assertThat(groupOrder(screen.render(FRAME, 200, 40, null))).containsExactly("game-b", "game-a", "doc-c");
    screen.reverse();
    assertThat(groupOrder(screen.render(FRAME, 200, 40, null))).containsExactly("doc-c", "game-a", "game-b");
    screen.nextSort();
    assertThat(screen.render(FRAME, 200, 40, null).get(0)).contains("sort: aborts descending");

    screen.filter("GAME");
    assertThat(groupOrder(screen.render(FRAME, 200, 40, null))).containsExactly("game-a", "game-b");
    assertThat(screen.render(FRAME, 200, 40, null).get(0)).contains("(2 shown)").contains("filter: GAME");
    screen.filter("rs2");
    assertThat(groupOrder(screen.render(FRAME, 200, 40, null))).containsExactly("doc-c");
    assertThat(screen.render(FRAME, 200, 40, "rs")).element(1).isEqualTo(
        "filter: rs_   (Enter applies, Esc cancels)");
  }

  @Test
  void aSmallWindowClipsLinesAndShowsAsManyGroupsAsFit() {
    List<String> lines = new TopScreen().render(FRAME, 30, 10, null);
    assertThat(lines).hasSizeLessThanOrEqualTo(10).allSatisfy(l -> assertThat(l.length()).isLessThanOrEqualTo(30));
    assertThat(groupOrder(lines)).containsExactly("game-a");
  }

  private static List<String> groupOrder(List<String> lines) {
    return lines.stream().filter(l -> l.startsWith("game-") || l.startsWith("doc-"))
        .map(l -> l.substring(0, l.indexOf('@'))).toList();
  }
}
