package org.gstore.common.protocol;

import java.util.Optional;

/**
 * A change to a node's durable protocol state. A step's changes must be durable, in the order given, before any of
 * the step's datagrams or replies leave the node.
 */
public sealed interface StateChange {
  /** What the change overwrites: two changes with the same target in one step collapse into the later one. */
  Object target();

  /**
   * The key whose region's host loads this change: the owned key, or a group's leader key. Empty for a change to
   * the node itself (its uid reservations), which no region loads.
   */
  Optional<Key> regionKey();

  /** Create or overwrite the record of a group this node leads. */
  record PutGroup(GroupRecord record) implements StateChange {
    @Override
    public Object target() {
      return record.id();
    }

    @Override
    public Optional<Key> regionKey() {
      return Optional.of(record.group().leader());
    }
  }

  /** The group finished deleting: forget it. */
  record RemoveGroup(GroupRef group) implements StateChange {
    @Override
    public Object target() {
      return group.id();
    }

    @Override
    public Optional<Key> regionKey() {
      return Optional.of(group.leader());
    }
  }

  /** Create or overwrite the owner record of a key this node hosts. */
  record PutOwner(OwnerRecord record) implements StateChange {
    @Override
    public Object target() {
      return record.key();
    }

    @Override
    public Optional<Key> regionKey() {
      return Optional.of(record.key());
    }
  }

  /** The key is free again. */
  record RemoveOwner(Key key) implements StateChange {
    @Override
    public Object target() {
      return key;
    }

    @Override
    public Optional<Key> regionKey() {
      return Optional.of(key);
    }
  }

  /**
   * The node may issue {@link Uid}s up to {@code upTo}; after a restart it continues above it. Always ordered
   * before the changes that use a newly reserved id.
   */
  record ReserveUids(NodeId node, long upTo) implements StateChange {
    @Override
    public Object target() {
      return node;
    }

    @Override
    public Optional<Key> regionKey() {
      return Optional.empty();
    }
  }
}
