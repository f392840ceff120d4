package org.gstore.common.wire;

/** A datagram that must be dropped, with the reason it is counted under. */
public final class DatagramRejectedException extends Exception {
  private static final long serialVersionUID = 1L;

  /** Why a datagram was dropped. */
  public enum Reason {
    /** Not a G-Store datagram, truncated, or a body that does not parse into valid messages. */
    MALFORMED,
    /** The HMAC does not match: not from a peer that knows the cluster secret, or altered. */
    UNAUTHENTICATED,
    /** From a peer speaking a protocol version this node does not. */
    UNKNOWN_VERSION,
    /** Larger than the configured maximum. */
    OVERSIZED,
    /** Authentic, but addressed to another node (a replay, or meant for an earlier server on this address). */
    MISADDRESSED,
    /** Authentic, but sent outside the freshness window: a replay, or a sender whose clock is far off. */
    STALE
  }

  private final Reason reason;

  public DatagramRejectedException(Reason reason, String message) {
    super(message);
    this.reason = reason;
  }

  public DatagramRejectedException(Reason reason, String message, Throwable cause) {
    super(message, cause);
    this.reason = reason;
  }

  public Reason reason() {
    return reason;
  }
}
