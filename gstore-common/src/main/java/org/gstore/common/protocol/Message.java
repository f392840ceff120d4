package org.gstore.common.protocol;

/**
 * A Key Grouping protocol message. Every message names the group incarnation and the member key it is about and is
 * addressed to a key ({@link #destination()}), never to a server.
 */
public sealed interface Message permits Join, JoinAck, JoinAckAck, Delete, DeleteAck {
  GroupRef group();

  Key member();

  /** The key whose current server must handle this message. */
  Key destination();

  /** Calls the visitor's method for this message's type. */
  <R> R accept(Visitor<R> visitor);

  /**
   * Exhaustive dispatch over the message types (Java 17 has no pattern switch): a new message type does not
   * compile until every visitor handles it.
   */
  interface Visitor<R> {
    R join(Join j);

    R joinAck(JoinAck ja);

    R joinAckAck(JoinAckAck jaa);

    R delete(Delete d);

    R deleteAck(DeleteAck da);
  }
}
