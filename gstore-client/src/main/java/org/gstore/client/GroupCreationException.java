package org.gstore.client;

import java.io.IOException;
import java.util.Map;

/**
 * Group creation failed and left no member joined: an atomic group met rows that belong to other groups, the
 * leader row itself was refused, the request was invalid, or the group was deleted before creation finished.
 * {@link #refused()} says which rows were refused and why.
 */
public class GroupCreationException extends IOException {
  private static final long serialVersionUID = 1L;
  private final transient Map<RowKey, String> refused;

  public GroupCreationException(String message, Map<RowKey, String> refused) {
    super(message);
    this.refused = Map.copyOf(refused);
  }

  /** Rows that did not join, with the reason for each. */
  public Map<RowKey, String> refused() {
    return refused;
  }
}
