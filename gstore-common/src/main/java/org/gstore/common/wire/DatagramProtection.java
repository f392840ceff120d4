package org.gstore.common.wire;

/**
 * How a datagram is protected on the wire. Both are authenticated with keys derived from the cluster secret; only
 * {@link #PRIVACY} hides what a datagram says (group names and row keys). A receiver takes both, whatever it sends,
 * so a cluster can switch from one to the other with a rolling restart.
 */
public enum DatagramProtection {
  /** Sent in clear, authenticated with HMAC-SHA256: anyone on the network path can read the row keys. */
  INTEGRITY,
  /** Encrypted and authenticated with AES-256-GCM: the network path sees only sizes, addresses and times. */
  PRIVACY
}
