package org.gstore.testing;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.zookeeper.ZooKeeper;

/**
 * A wiretap on loopback: a UDP relay that a peer's published address is pointed at, so that every datagram sent to
 * that peer crosses it, is copied as it is on the wire, and goes on to the peer. Closing it points the peer's znode
 * back at the peer. A session that may change the peer's znode is the caller's (on a secure cluster, HBase's).
 */
final class DatagramTap implements AutoCloseable {
  private final ZooKeeper zk;
  private final String znode;
  private final byte[] published;
  private final InetSocketAddress peer;
  private final DatagramSocket socket;
  private final List<byte[]> captured = new CopyOnWriteArrayList<>();
  private final Thread relay;

  private DatagramTap(ZooKeeper zk, String znode, byte[] published) throws IOException {
    this.zk = zk;
    this.znode = znode;
    this.published = published;
    String hostPort = new String(published, StandardCharsets.UTF_8);
    int colon = hostPort.lastIndexOf(':');
    this.peer = new InetSocketAddress(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
    this.socket = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    this.relay = new Thread(this::relay, "datagram-tap");
    relay.setDaemon(true);
    relay.start();
  }

  /** Taps the datagrams sent to the peer published at {@code znode} ({@code <parent>/gstore/peers/<node>}). */
  static DatagramTap on(ZooKeeper zk, String znode) throws Exception {
    DatagramTap tap = new DatagramTap(zk, znode, zk.getData(znode, false, null));
    zk.setData(znode, ("127.0.0.1:" + tap.socket.getLocalPort()).getBytes(StandardCharsets.UTF_8), -1);
    return tap;
  }

  private void relay() {
    byte[] buffer = new byte[65_536];
    try (DatagramSocket forward = new DatagramSocket()) {
      while (!socket.isClosed()) {
        DatagramPacket packet = new DatagramPacket(buffer, buffer.length);
        socket.receive(packet);
        captured.add(Arrays.copyOfRange(packet.getData(), packet.getOffset(), packet.getOffset() + packet.getLength()));
        forward.send(new DatagramPacket(packet.getData(), packet.getOffset(), packet.getLength(), peer));
      }
    } catch (SocketException closed) {
      // closed
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Every datagram that crossed the tap so far, as it was on the wire. */
  List<byte[]> captured() {
    return List.copyOf(captured);
  }

  @Override
  public void close() throws Exception {
    zk.setData(znode, published, -1);
    socket.close();
    relay.join(10_000);
  }
}
