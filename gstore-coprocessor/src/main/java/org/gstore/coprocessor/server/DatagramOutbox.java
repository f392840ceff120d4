package org.gstore.coprocessor.server;

import java.net.InetSocketAddress;
import java.util.function.Predicate;
import org.gstore.common.protocol.Datagram;
import org.gstore.common.protocol.NodeId;
import org.gstore.coprocessor.transport.HBaseKeyLocator;
import org.gstore.coprocessor.transport.PeerRegistry;
import org.gstore.coprocessor.transport.UdpTransport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the engine's datagrams leave: past the {@link ReleaseGate} (a deleted group's releases wait for its commits
 * to be in HBase), to the peer's address in ZooKeeper, over UDP. A datagram that cannot leave is dropped: the
 * protocol's retries make up for it.
 */
final class DatagramOutbox {
  private static final Logger LOG = LoggerFactory.getLogger(DatagramOutbox.class);

  private final ReleaseGate releaseGate;
  private final PeerRegistry peers;
  private final HBaseKeyLocator locator;
  private final UdpTransport transport;
  /** Test clusters only: peers this server's datagrams do not reach now ({@link TestFaults}). */
  private final Predicate<NodeId> partitioned;

  DatagramOutbox(ReleaseGate releaseGate, PeerRegistry peers, HBaseKeyLocator locator, UdpTransport transport,
      Predicate<NodeId> partitioned) {
    this.releaseGate = releaseGate;
    this.peers = peers;
    this.locator = locator;
    this.transport = transport;
    this.partitioned = partitioned;
  }

  void send(Datagram unfiltered) {
    Datagram d = releaseGate.pass(unfiltered);
    if (d == null || partitioned.test(d.to())) {
      return;
    }
    InetSocketAddress to = peers.addressOf(d.to());
    if (to == null) {
      // the server is gone or runs no G-Store region: its keys moved; look them up afresh for the retries
      LOG.debug("no G-Store peer {}; re-resolving its keys", d.to());
      d.messages().forEach(m -> locator.invalidate(m.destination()));
      return;
    }
    try {
      transport.send(d, to);
    } catch (RuntimeException e) { // never the writer thread's end: the protocol's retries make up for the loss
      LOG.error("G-Store could not send a datagram to {}", d.to(), e);
    }
  }
}
