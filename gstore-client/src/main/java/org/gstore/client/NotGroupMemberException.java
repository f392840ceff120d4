package org.gstore.client;

import java.io.IOException;

/** A transaction touched a row that is not a member of its group. Nothing was read or written. */
public class NotGroupMemberException extends IOException {
  private static final long serialVersionUID = 1L;

  public NotGroupMemberException(String message) {
    super(message);
  }
}
