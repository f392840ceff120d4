package org.gstore.common.protocol;

/**
 * A protocol endpoint: a region server's G-Store peer, named by its stable datagram address ({@code host:port}).
 * It issues {@link Uid}s, so it must stay the same across restarts of the same server.
 */
public record NodeId(String value) implements Comparable<NodeId> {
  public NodeId {
    if (value == null || value.isEmpty()) {
      throw new IllegalArgumentException("node id must not be empty");
    }
  }

  @Override
  public int compareTo(NodeId o) {
    return value.compareTo(o.value);
  }

  @Override
  public String toString() {
    return value;
  }
}
