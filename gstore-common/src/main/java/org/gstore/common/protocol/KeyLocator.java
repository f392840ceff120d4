package org.gstore.common.protocol;

/**
 * Resolves the node that currently hosts a key. Implementations cache (HBase region locations, for example) and
 * may be stale; the engine invalidates a key when its supposed host answers "not mine".
 */
public interface KeyLocator {
  /** The node believed to host {@code key}, or {@code null} if unknown right now (the message waits for a retry). */
  NodeId locate(Key key);

  /** Forget the cached location of {@code key}. */
  void invalidate(Key key);
}
