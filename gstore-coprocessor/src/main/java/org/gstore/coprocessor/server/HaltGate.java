package org.gstore.coprocessor.server;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gate every effect of a {@link StepWriter} leaves through (datagrams, answers, held releases), closed for good
 * by a halt: once {@link #halt} returns, nothing more leaves, not even effects that were about to.
 */
final class HaltGate {
  private static final Logger LOG = LoggerFactory.getLogger(HaltGate.class);

  /** Why nothing more leaves, or null. */
  private volatile String why;

  /** Closes the gate; once this returns, no effect leaves. */
  synchronized void halt(String reason) {
    if (why == null) {
      why = reason;
      LOG.error("G-Store lets nothing out any more: {}", reason);
    }
  }

  /** Runs {@code effects} unless halted, so that none runs after a halt returns. Returns whether they ran. */
  synchronized boolean letOut(Runnable effects) {
    if (why != null) {
      return false;
    }
    effects.run();
    return true;
  }

  boolean halted() {
    return why != null;
  }

  /** Why the gate was closed, or null. */
  String why() {
    return why;
  }
}
