package org.gstore.coprocessor.transport;

import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.hbase.thirdparty.io.netty.bootstrap.Bootstrap;
import org.apache.hbase.thirdparty.io.netty.buffer.ByteBuf;
import org.apache.hbase.thirdparty.io.netty.buffer.Unpooled;
import org.apache.hbase.thirdparty.io.netty.channel.Channel;
import org.apache.hbase.thirdparty.io.netty.channel.ChannelHandlerContext;
import org.apache.hbase.thirdparty.io.netty.channel.ChannelOption;
import org.apache.hbase.thirdparty.io.netty.channel.EventLoopGroup;
import org.apache.hbase.thirdparty.io.netty.channel.FixedRecvByteBufAllocator;
import org.apache.hbase.thirdparty.io.netty.channel.SimpleChannelInboundHandler;
import org.apache.hbase.thirdparty.io.netty.channel.nio.NioEventLoopGroup;
import org.apache.hbase.thirdparty.io.netty.channel.socket.DatagramPacket;
import org.apache.hbase.thirdparty.io.netty.channel.socket.nio.NioDatagramChannel;
import org.apache.hbase.thirdparty.io.netty.util.concurrent.DefaultThreadFactory;
import org.gstore.common.protocol.Datagram;
import org.gstore.common.wire.DatagramCodec;
import org.gstore.common.wire.DatagramProtection;
import org.gstore.common.wire.DatagramRejectedException;
import org.gstore.coprocessor.metrics.GStoreMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The protocol's datagram socket, on the Netty HBase ships relocated. Sends each datagram (split when larger than
 * the configured maximum) and hands every authentic one it receives to the protocol; anything else is dropped and
 * counted, never thrown.
 *
 * <p>Tests can make it drop or duplicate a share of outgoing datagrams ({@link DatagramFaults}).
 */
public final class UdpTransport implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(UdpTransport.class);

  private final DatagramCodec codec;
  private final GStoreMetrics metrics;
  private final EventLoopGroup group;
  private Channel channel;
  /** When a clear datagram was last warned of (the transport thread's own). */
  private long lastClearWarning = System.nanoTime() - TimeUnit.HOURS.toNanos(1);

  public UdpTransport(DatagramCodec codec, GStoreMetrics metrics) {
    this.codec = codec;
    this.metrics = metrics;
    this.group = new NioEventLoopGroup(1, new DefaultThreadFactory("gstore-udp", true));
  }

  /**
   * Binds the socket to the first free port of {@code firstPort..lastPort} on {@code address}; {@code onDatagram}
   * runs on the transport thread for each authentic datagram.
   *
   * @param setting the configuration key of the range, for the error message
   * @throws IOException naming the address, the ports tried and the key if no port of the range is free
   */
  public InetSocketAddress startInRange(String address, int firstPort, int lastPort, String setting, int maxBytes,
      Consumer<Datagram> onDatagram) throws InterruptedException, IOException {
    for (int port = firstPort; ; port++) {
      try {
        return start(new InetSocketAddress(address, port), maxBytes, onDatagram);
      } catch (InterruptedException e) {
        throw e;
      } catch (Exception e) { // Netty rethrows the bind failure undeclared
        if (!(e instanceof java.net.BindException) || port >= lastPort) {
          throw new IOException("G-Store cannot bind UDP " + address + ":" + (firstPort == port ? port
              : firstPort + "-" + port) + " (" + setting + "): " + e.getMessage(), e);
        }
      }
    }
  }

  /** Binds the socket; {@code onDatagram} runs on the transport thread for each authentic datagram. */
  public InetSocketAddress start(InetSocketAddress bind, int maxBytes, Consumer<Datagram> onDatagram) throws InterruptedException {
    channel = new Bootstrap().group(group)
        .channel(NioDatagramChannel.class)
        .option(ChannelOption.SO_RCVBUF, 4 << 20)
        .option(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(maxBytes + 1))
        .handler(new SimpleChannelInboundHandler<DatagramPacket>() {
          @Override
          protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket packet) {
            receive(packet.content(), onDatagram);
          }

          @Override
          public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            LOG.warn("G-Store datagram socket error", cause);
          }
        })
        .bind(bind).sync().channel();
    return (InetSocketAddress) channel.localAddress();
  }

  private void receive(ByteBuf content, Consumer<Datagram> onDatagram) {
    byte[] bytes = new byte[content.readableBytes()];
    content.readBytes(bytes);
    Datagram d;
    try {
      d = codec.decode(bytes, 0, bytes.length);
    } catch (DatagramRejectedException e) {
      metrics.datagramDropped(e.reason());
      LOG.debug("dropped datagram: {} ({})", e.reason(), e.getMessage());
      return;
    }
    metrics.datagramReceived();
    if (codec.protection() == DatagramProtection.PRIVACY && DatagramCodec.isClear(bytes, 0)) {
      warnOfClearPeer(d);
    }
    try {
      onDatagram.accept(d);
    } catch (RuntimeException e) {
      LOG.error("G-Store could not handle a datagram from {}", d.from(), e);
    }
  }

  /**
   * A peer sends in clear what this server encrypts (a server left on {@code integrity}, or whose configuration
   * lacks {@code hbase.rpc.protection=privacy}, or one of a rolling restart): taken, counted, and logged at most
   * once a minute, so an operator can find it.
   */
  private void warnOfClearPeer(Datagram d) {
    metrics.datagramReceivedInClear();
    long now = System.nanoTime();
    if (now - lastClearWarning > TimeUnit.MINUTES.toNanos(1)) {
      lastClearWarning = now;
      LOG.warn("G-Store peer {} sends its datagrams in clear while this server encrypts them (row keys cross the"
          + " network readable): set gstore.udp.protection (or hbase.rpc.protection=privacy) on it as here",
          d.from());
    }
  }

  public void send(Datagram d, InetSocketAddress to) {
    for (byte[] bytes : codec.encodeAll(d)) {
      int copies = DatagramFaults.copies();
      for (int i = 0; i < copies; i++) {
        channel.writeAndFlush(new DatagramPacket(Unpooled.wrappedBuffer(bytes), to));
        metrics.datagramSent();
      }
    }
  }

  @Override
  public void close() {
    if (channel != null) {
      channel.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
    }
    group.shutdownGracefully(0, 2, TimeUnit.SECONDS);
  }
}
