package org.gstore.common.protocol;

/** How group creation treats members that could not join (G-Store paper, section 4). */
public enum CreateMode {
  /** All members join, or the group is deleted and none stays joined. */
  ATOMIC,
  /** The group keeps the members that joined; the leader key itself must join. */
  BEST_EFFORT
}
