package org.gstore.client;

import java.util.Objects;
import org.apache.hadoop.hbase.TableName;

/**
 * A group's identity: its name and its leader row. Names are unique among the live groups of one leader row.
 * {@link #toString()} is the printable id, {@code name@table/row}; {@link #of(String)} parses it back.
 */
public final class GroupId {
  private final String name;
  private final RowKey leader;

  GroupId(String name, RowKey leader) {
    if (name == null || name.isEmpty()) {
      throw new IllegalArgumentException("group name must not be empty");
    }
    this.name = name;
    this.leader = Objects.requireNonNull(leader, "leader");
  }

  /** The id of the group named {@code name} led by {@code leader}. */
  public static GroupId of(String name, RowKey leader) {
    return new GroupId(name, leader);
  }

  /** Parses a printable id made by {@link #toString()}. */
  public static GroupId of(String printable) {
    int at = printable.lastIndexOf('@');
    int slash = at < 0 ? -1 : printable.indexOf('/', at);
    if (at <= 0 || slash < 0) {
      throw new IllegalArgumentException("not a group id (name@table/row): '" + printable + "'");
    }
    TableName table = TableName.valueOf(printable.substring(at + 1, slash));
    return new GroupId(printable.substring(0, at), RowKey.of(table, Printable.unescape(printable.substring(slash + 1))));
  }

  public String name() {
    return name;
  }

  public RowKey leader() {
    return leader;
  }

  org.gstore.common.protocol.GroupId toProtocol() {
    return new org.gstore.common.protocol.GroupId(name, leader.toKey());
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof GroupId g && name.equals(g.name) && leader.equals(g.leader);
  }

  @Override
  public int hashCode() {
    return 31 * name.hashCode() + leader.hashCode();
  }

  @Override
  public String toString() {
    return name + "@" + leader;
  }
}
