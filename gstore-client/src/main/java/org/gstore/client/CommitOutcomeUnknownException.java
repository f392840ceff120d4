package org.gstore.client;

import java.io.IOException;

/**
 * {@link Transaction#commit()} could not learn whether the commit took effect: it retried the same commit (same
 * transaction id) until {@code gstore.client.commit.deadline.ms} passed without an answer from the group's
 * leader. The commit takes effect once or not at all, possibly after this was thrown (a leader whose log was
 * slow, or the replay of a crashed leader's log, may still make it durable); read the rows later to find out.
 * {@link KeyGroup#transact} never runs the body again after it.
 */
public class CommitOutcomeUnknownException extends IOException {
  private static final long serialVersionUID = 1L;

  public CommitOutcomeUnknownException(String message, Throwable cause) {
    super(message, cause);
  }
}
