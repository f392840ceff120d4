package org.gstore.common.protocol;

/**
 * The application's name for a group: its name and its leader key (G-Store: "group id = unique id + leader key").
 * Names are unique among the live groups of one leader key.
 */
public record GroupId(String name, Key leader) {
  public GroupId {
    if (name == null || name.isEmpty()) {
      throw new IllegalArgumentException("group name must not be empty");
    }
    if (leader == null) {
      throw new IllegalArgumentException("leader key must not be null");
    }
  }

  @Override
  public String toString() {
    return name + "@" + leader;
  }
}
