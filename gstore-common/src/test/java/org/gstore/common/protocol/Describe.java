package org.gstore.common.protocol;

import java.util.stream.Collectors;

/** Short renderings of protocol traffic for simulation traces. */
final class Describe {
  private Describe() {}

  static String datagram(Datagram d) {
    String body = d.messages().stream().map(Describe::message).collect(Collectors.joining(", "));
    String notMine = d.notMine().isEmpty() ? "" : " notMine" + d.notMine();
    return d.from() + "->" + d.to() + " [" + body + "]" + notMine;
  }

  static String message(Message m) {
    String g = m.group().id().name() + "~" + m.group().epoch();
    String k = m.member().toString();
    return m.accept(new Message.Visitor<String>() {
      @Override
      public String join(Join j) {
        return "J(" + g + "," + k + ")";
      }

      @Override
      public String joinAck(JoinAck ja) {
        return "JA(" + g + "," + k + "," + (ja.joined() ? ja.yieldId() : "refused") + ")";
      }

      @Override
      public String joinAckAck(JoinAckAck jaa) {
        return "JAA(" + g + "," + k + "," + jaa.yieldId() + ")";
      }

      @Override
      public String delete(Delete d) {
        return "D(" + g + "," + k + ")";
      }

      @Override
      public String deleteAck(DeleteAck da) {
        return "DA(" + g + "," + k + ")";
      }
    });
  }

  static String request(ClientRequest r) {
    return (r instanceof ClientRequest.Create c
        ? "create " + c.group() + " " + c.mode() + " " + c.members()
        : "delete " + r.group()) + " (" + r.requestId() + ")";
  }
}
