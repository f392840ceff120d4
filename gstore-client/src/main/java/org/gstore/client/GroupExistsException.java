package org.gstore.client;

import java.io.IOException;

/** A live group already has this name and leader row. */
public class GroupExistsException extends IOException {
  private static final long serialVersionUID = 1L;

  public GroupExistsException(String message) {
    super(message);
  }
}
