package org.gstore.common.protocol;

/** Counters a node exposes as metrics. Single-threaded like the engine that updates them. */
public final class ProtocolStats {
  long messagesSent;
  long messagesRetried;
  long messagesUnroutable;
  long notMineReceived;
  long groupsCreated;
  long groupsFailed;
  long groupsDeleted;

  public long messagesSent() {
    return messagesSent;
  }

  /** Messages sent again by a retry timer. */
  public long messagesRetried() {
    return messagesRetried;
  }

  /** Messages not sent because the destination key's host was unknown (they are retried later). */
  public long messagesUnroutable() {
    return messagesUnroutable;
  }

  /** Keys a peer told us it does not host. */
  public long notMineReceived() {
    return notMineReceived;
  }

  public long groupsCreated() {
    return groupsCreated;
  }

  public long groupsFailed() {
    return groupsFailed;
  }

  public long groupsDeleted() {
    return groupsDeleted;
  }
}
