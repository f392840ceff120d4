package org.gstore.cli;

import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.apache.hadoop.hbase.client.Connection;
import org.gstore.client.GStoreAdmin;
import org.gstore.client.GStoreClient;
import org.gstore.client.GroupId;
import org.gstore.client.GroupInfo;
import org.gstore.client.RowKey;

/**
 * {@code gstore groups list|show ID|delete ID}: the groups of a cluster as {@link GStoreAdmin} sees them, and the
 * deletion of one an application left behind (the same path as {@code KeyGroup.delete()}).
 */
final class GroupsCommand {
  private GroupsCommand() {}

  /** Runs the subcommand; true if it did what was asked. */
  static boolean run(Connection connection, String subcommand, String id, PrintStream out) throws Exception {
    try (GStoreClient client = GStoreClient.create(connection); GStoreAdmin admin = client.admin()) {
      switch (subcommand) {
        case "list" -> out.print(renderList(admin.listGroups(), Instant.now()));
        case "show" -> out.print(renderOne(admin.describeGroup(GroupId.of(id)), Instant.now()));
        case "delete" -> {
          admin.deleteGroup(GroupId.of(id));
          out.println("deleted " + id + ": its commits are in HBase and its rows take plain writes again");
        }
        default -> throw new IllegalArgumentException(subcommand);
      }
      return true;
    }
  }

  static String renderList(List<GroupInfo> groups, Instant now) {
    StringBuilder out = new StringBuilder(String.format("%-40s %-9s %7s %10s %-18s %10s %-28s %s%n", "group",
        "state", "members", "age", "lease", "unshipped", "leader server", "holder"));
    for (GroupInfo g : groups) {
      out.append(String.format("%-40s %-9s %7d %10s %-18s %10s %-28s %s%n", g.id(), g.state(), g.members().size(),
          age(g.since(), now), lease(g, now), count(g.unshippedCommits()), orDash(g.leaderServer()),
          orDash(g.holder())));
    }
    out.append(groups.size()).append(groups.size() == 1 ? " group" : " groups").append('\n');
    return out.toString();
  }

  static String renderOne(GroupInfo g, Instant now) {
    StringBuilder out = new StringBuilder();
    out.append("group          ").append(g.id()).append('\n');
    out.append("state          ").append(g.state()).append(", since ").append(g.since()).append(" (")
        .append(age(g.since(), now)).append(" ago)\n");
    out.append("leader server  ").append(orDash(g.leaderServer())).append('\n');
    out.append("lease          ").append(lease(g, now)).append(", renewed by ").append(orDash(g.holder()))
        .append('\n');
    out.append("commits        ").append(count(g.unshippedCommits())).append(" not shipped to HBase, ")
        .append(count(g.unpersistedCommits())).append(" not yet persisted there\n");
    out.append("members        ").append(g.members().size()).append('\n');
    for (RowKey m : g.members()) {
      out.append("  ").append(m).append('\n');
    }
    if (!g.refused().isEmpty()) {
      out.append("refused        ").append(g.refused().size()).append('\n');
      g.refused().forEach(m -> out.append("  ").append(m).append('\n'));
    }
    return out.toString();
  }

  private static String lease(GroupInfo g, Instant now) {
    if (g.lease().isZero()) {
      return "none";
    }
    String of = seconds(g.lease());
    if (g.leaseExpiresAt() == null) {
      return of;
    }
    Duration left = Duration.between(now, g.leaseExpiresAt());
    return of + (left.isNegative() ? ", lapsed" : ", " + seconds(left) + " left");
  }

  private static String age(Instant since, Instant now) {
    return seconds(Duration.between(since, now));
  }

  private static String seconds(Duration d) {
    return Math.max(0, d.toSeconds()) + "s";
  }

  private static String count(long n) {
    return n < 0 ? "?" : Long.toString(n);
  }

  private static String orDash(String s) {
    return s == null ? "-" : s;
  }
}
