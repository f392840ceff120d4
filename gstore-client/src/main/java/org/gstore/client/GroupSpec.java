package org.gstore.client;

import java.time.Duration;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Set;
import org.apache.hadoop.hbase.TableName;
import org.gstore.common.protocol.LeaseBounds;

/**
 * What group to form: its members (rows of any tables that run G-Store), optionally its name and leader, and
 * whether creation is atomic (the default) or best-effort. Build with {@link #builder()}.
 */
public final class GroupSpec {
  private final String id;
  private final RowKey leader;
  private final Set<RowKey> members;
  private final boolean atomic;
  private final Duration lease;

  private GroupSpec(Builder b) {
    this.id = b.id;
    this.leader = b.leader;
    this.members = Collections.unmodifiableSet(new LinkedHashSet<>(b.members));
    this.atomic = b.atomic;
    this.lease = b.lease;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The group's name, or null to have one generated. */
  public String id() {
    return id;
  }

  /** The leader row, or null to let the client choose the member whose server hosts the most members. */
  public RowKey leader() {
    return leader;
  }

  /** Every member, the leader included. */
  public Set<RowKey> members() {
    return members;
  }

  public boolean isAtomic() {
    return atomic;
  }

  /** The group's lease, or null for the client's default ({@code gstore.group.lease.ms}). */
  public Duration lease() {
    return lease;
  }

  /** Builds a {@link GroupSpec}. */
  public static final class Builder {
    private String id;
    private RowKey leader;
    private final Set<RowKey> members = new LinkedHashSet<>();
    private boolean atomic = true;
    private Duration lease;

    private Builder() {}

    /** The group's name (unique among the live groups of its leader row); generated when absent. */
    public Builder id(String id) {
      if (id == null || id.isEmpty()) {
        throw new IllegalArgumentException("group id must not be empty");
      }
      this.id = id;
      return this;
    }

    /** The leader row; it becomes a member too. Chosen by the system when absent. */
    public Builder leader(TableName table, byte[] row) {
      this.leader = RowKey.of(table, row);
      members.add(leader);
      return this;
    }

    public Builder member(TableName table, byte[] row) {
      members.add(RowKey.of(table, row));
      return this;
    }

    public Builder members(TableName table, Collection<byte[]> rows) {
      for (byte[] row : rows) {
        member(table, row);
      }
      return this;
    }

    /** All members join, or none stays joined (the default). */
    public Builder atomic() {
      this.atomic = true;
      return this;
    }

    /** The group keeps the members that could join; {@link KeyGroup#refused()} lists the others. */
    public Builder bestEffort() {
      this.atomic = false;
      return this;
    }

    /**
     * How long the group lives without a renewal: while a {@link GStoreClient} that created or looked it up is
     * open, it renews the lease; once none does (the application crashed, or closed its client without deleting
     * the group), the group's leader deletes it, as {@link KeyGroup#delete()} would, within the lease plus about a
     * second. {@link Duration#ZERO}: the group lives until deleted. Otherwise at least one second, at most seven
     * days. Default: {@code gstore.group.lease.ms} of the client's configuration (60 s).
     */
    public Builder lease(Duration lease) {
      if (lease == null || !lease.isZero() && (lease.compareTo(Duration.ofMillis(LeaseBounds.MIN_MILLIS)) < 0
          || lease.compareTo(Duration.ofMillis(LeaseBounds.MAX_MILLIS)) > 0)) {
        throw new IllegalArgumentException("a lease must be zero (no lease) or from 1 s to 7 days, not " + lease);
      }
      this.lease = lease;
      return this;
    }

    public GroupSpec build() {
      if (members.isEmpty()) {
        throw new IllegalArgumentException("a group needs at least one member");
      }
      return new GroupSpec(this);
    }
  }
}
