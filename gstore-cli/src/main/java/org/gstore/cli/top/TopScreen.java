package org.gstore.cli.top;

import java.time.Duration;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * What {@code gstore top} shows, as lines of text: a header, the region servers, and the busiest groups, sorted and
 * filtered as the operator asked. Knows nothing of terminals, so a frame renders the same on a screen and with
 * {@code --once}.
 */
public final class TopScreen {
  /** The group table's sort keys, in the order the {@code s} key cycles through them. */
  public enum Sort {
    COMMITS_PER_SECOND("commits/s", g -> nanToLow(g.commitsPerSecond())),
    COMMITS("commits", Frame.Group::commits),
    ABORTS("aborts", Frame.Group::aborts),
    MEMBERS("members", Frame.Group::members),
    LEASE_LEFT("lease left", g -> g.leaseLeft() == null ? Double.MAX_VALUE : -g.leaseLeft().toMillis()),
    UNSHIPPED("unshipped", Frame.Group::unshipped);

    final String label;
    final ToDoubleFunction<Frame.Group> key; // larger first

    Sort(String label, ToDoubleFunction<Frame.Group> key) {
      this.label = label;
      this.key = key;
    }

    Sort next() {
      return values()[(ordinal() + 1) % values().length];
    }
  }

  static final String KEYS = "q quit  s sort  r reverse  / filter  c clear filter";
  private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneId.systemDefault());
  private static final List<String> SERVER_COLUMNS = List.of("SERVER", "STATE", "GROUPS", "COMMITS/S", "P50_MS",
      "P99_MS", "SYNCS/S", "BACKLOG", "LAG_MS", "UNPERSIST", "T_F", "T_P", "WAL_MB", "ALERTS");
  private static final List<String> GROUP_COLUMNS = List.of("GROUP", "LEADER", "STATE", "MEMBERS", "COMMITS",
      "COMMITS/S", "ABORTS", "LEASE_LEFT", "UNSHIPPED");

  private static final java.util.regex.Pattern CONTROL = java.util.regex.Pattern.compile("\\p{Cntrl}");

  private Sort sort = Sort.COMMITS_PER_SECOND;
  private boolean ascending;
  private String filter = "";

  public Sort sort() {
    return sort;
  }

  /** Sorts the groups by the next key ({@code s}). */
  public void nextSort() {
    sort = sort.next();
    ascending = false;
  }

  /** Reverses the groups' order ({@code r}). */
  public void reverse() {
    ascending = !ascending;
  }

  /** Shows only groups whose id, leader or state contain {@code text} (case ignored); empty shows all. */
  public void filter(String text) {
    filter = text == null ? "" : text.trim();
  }

  public String filter() {
    return filter;
  }

  /**
   * The frame as at most {@code height} lines of at most {@code width} characters; {@code prompt}, when not null,
   * is the filter being typed, shown in place of the key help.
   */
  public List<String> render(Frame frame, int width, int height, String prompt) {
    List<String> lines = new ArrayList<>();
    double commits = frame.servers().stream().mapToDouble(Frame.Server::commitsPerSecond).filter(d -> !Double.isNaN(d))
        .sum();
    List<Frame.Group> groups = shownGroups(frame);
    lines.add(String.format("gstore top - %s   %d region servers, %d groups (%d shown), %s commits/s   sort: %s %s%s",
        CLOCK.format(frame.at()), frame.servers().size(), frame.groups().size(), groups.size(), number(commits, 1),
        sort.label, ascending ? "ascending" : "descending", filter.isEmpty() ? "" : "   filter: " + filter));
    lines.add(prompt != null ? "filter: " + prompt + "_   (Enter applies, Esc cancels)" : KEYS);
    lines.add("");
    List<List<String>> servers = new ArrayList<>(List.of(SERVER_COLUMNS));
    for (Frame.Server s : frame.servers()) {
      servers.add(List.of(s.name(), s.state(), number(s.groupsLed(), 0), number(s.commitsPerSecond(), 1),
          number(s.commitP50Millis(), 1), number(s.commitP99Millis(), 1), number(s.walSyncsPerSecond(), 1),
          number(s.shipperBacklog(), 0), number(s.shipperLagMillis(), 0), number(s.unpersisted(), 0),
          position(s.shippedThrough()), position(s.persistedThrough()),
          s.walBytes() < 0 ? "-" : number(s.walBytes() / 1048576.0, 1),
          s.alerts().isEmpty() ? "-" : String.join(",", s.alerts())));
    }
    lines.addAll(table(servers, 2));
    lines.add("");
    int room = Math.max(0, height - lines.size() - 1 - Math.min(frame.problems().size(), 3));
    List<List<String>> shown = new ArrayList<>(List.of(GROUP_COLUMNS));
    for (Frame.Group g : groups.subList(0, Math.min(room, groups.size()))) {
      shown.add(List.of(g.id(), g.leader(), g.state(), Integer.toString(g.members()), count(g.commits()),
          number(g.commitsPerSecond(), 1), count(g.aborts()), lease(g.leaseLeft()), count(g.unshipped())));
    }
    lines.addAll(table(shown, 3));
    frame.problems().stream().limit(3).forEach(p -> lines.add("! " + p));
    List<String> clipped = new ArrayList<>();
    for (String line : lines.subList(0, Math.min(lines.size(), height))) {
      clipped.add(clip(line, width));
    }
    return clipped;
  }

  private List<Frame.Group> shownGroups(Frame frame) {
    String f = filter.toLowerCase(Locale.ROOT);
    Comparator<Frame.Group> order = Comparator.comparingDouble(sort.key);
    order = (ascending ? order : order.reversed()).thenComparing(Frame.Group::id);
    return frame.groups().stream()
        .filter(g -> f.isEmpty() || (g.id() + " " + g.leader() + " " + g.state()).toLowerCase(Locale.ROOT).contains(f))
        .sorted(order).toList();
  }

  /** Rows as columns as wide as their widest cell; the first {@code leftAligned} columns text, the rest numbers. */
  private static List<String> table(List<List<String>> rows, int leftAligned) {
    int[] widths = new int[rows.get(0).size()];
    rows.forEach(r -> {
      for (int i = 0; i < r.size(); i++) {
        widths[i] = Math.max(widths[i], r.get(i).length());
      }
    });
    List<String> lines = new ArrayList<>();
    for (List<String> r : rows) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < r.size(); i++) {
        String cell = r.get(i);
        String pad = " ".repeat(widths[i] - cell.length());
        line.append(i == 0 ? "" : "  ").append(i < leftAligned ? cell + pad : pad + cell);
      }
      lines.add(line.toString().stripTrailing());
    }
    return lines;
  }

  /** One screen line: control characters (a message's line breaks, tabs) as spaces, cut at {@code width}. */
  static String clip(String line, int width) {
    String flat = CONTROL.matcher(line).replaceAll(" ");
    return flat.length() > width ? flat.substring(0, width) : flat;
  }

  private static double nanToLow(double d) {
    return Double.isNaN(d) ? -1 : d;
  }

  private static String number(double d, int decimals) {
    return Double.isNaN(d) ? "-" : String.format(Locale.ROOT, "%." + decimals + "f", d);
  }

  private static String count(long n) {
    return n < 0 ? "-" : Long.toString(n);
  }

  private static String position(long p) {
    return p < 0 ? "-" : Long.toString(p);
  }

  private static String lease(Duration left) {
    if (left == null) {
      return "-";
    }
    return left.isNegative() ? "lapsed" : String.format(Locale.ROOT, "%.1fs", left.toMillis() / 1e3);
  }
}
