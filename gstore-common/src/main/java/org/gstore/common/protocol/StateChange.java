package org.gstore.common.protocol;

/**
 * A change to a node's durable protocol state. A step's changes must be durable, in the order given, before any of
 * the step's datagrams or replies leave the node.
 */
public sealed interface StateChange {
  /** What the change overwrites: two changes with the same target in one step collapse into the later one. */
  Object target();

  /** Create or overwrite the record of a group this node leads. */
  record PutGroup(GroupRecord record) implements StateChange {
    @Override
    public Object target() {
      return record.id();
    }
  }

  /** The group finished deleting: forget it. */
  record RemoveGroup(GroupRef group) implements StateChange {
    @Override
    public Object target() {
      return group.id();
    }
  }

  /** Create or overwrite the owner record of a key this node hosts. */
  record PutOwner(OwnerRecord record) implements StateChange {
    @Override
    public Object target() {
      return record.key();
    }
  }

  /** The key is free again. */
  record RemoveOwner(Key key) implements StateChange {
    @Override
    public Object target() {
      return key;
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
  }
}
