package org.gstore.client;

import java.io.IOException;

/** There is no such group (never created, or already deleted). */
public class GroupNotFoundException extends IOException {
  private static final long serialVersionUID = 1L;

  public GroupNotFoundException(String message) {
    super(message);
  }
}
