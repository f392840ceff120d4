package org.gstore.client;

import java.io.IOException;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import org.gstore.common.protocol.GroupRecord;
import org.gstore.common.protocol.MemberState;

/**
 * A formed group: the rows that joined are owned by the leader's region server until {@link #delete()}.
 * Obtained from {@link GStoreClient#createGroup} or {@link GStoreClient#getGroup}.
 */
public final class KeyGroup {
  private final GStoreClient client;
  private final GroupId id;
  private final Set<RowKey> members;
  private final Set<RowKey> refused;

  KeyGroup(GStoreClient client, GroupId id, Set<RowKey> members, Set<RowKey> refused) {
    this.client = client;
    this.id = id;
    this.members = Collections.unmodifiableSet(members);
    this.refused = Collections.unmodifiableSet(refused);
  }

  static KeyGroup from(GStoreClient client, GroupRecord record) {
    GroupId id = new GroupId(record.id().name(), RowKey.of(record.id().leader()));
    return new KeyGroup(client, id, rows(record, MemberState.Status.JOINED), rows(record, MemberState.Status.REFUSED));
  }

  private static Set<RowKey> rows(GroupRecord record, MemberState.Status status) {
    Set<RowKey> rows = new LinkedHashSet<>();
    record.members(status).forEach(k -> rows.add(RowKey.of(k)));
    return rows;
  }

  static Map<RowKey, String> refusals(GroupRecord record) {
    Map<RowKey, String> refused = new java.util.LinkedHashMap<>();
    record.members().forEach((k, m) -> {
      if (m.is(MemberState.Status.REFUSED)) {
        refused.put(RowKey.of(k), m.refusal());
      }
    });
    return refused;
  }

  public GroupId id() {
    return id;
  }

  public RowKey leader() {
    return id.leader();
  }

  /** The rows that joined, the leader included. */
  public Set<RowKey> members() {
    return members;
  }

  /** The rows that did not join (best-effort groups; always empty for atomic ones). */
  public Set<RowKey> refused() {
    return refused;
  }

  /** Dissolves the group; returns once every member has been given back. */
  public void delete() throws IOException {
    client.deleteGroup(id);
  }

  @Override
  public String toString() {
    return "KeyGroup[" + id + ", " + members.size() + " members" + (refused.isEmpty() ? "" : ", "
        + refused.size() + " refused") + "]";
  }
}
