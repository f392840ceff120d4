package org.gstore.testing.process;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

/** Whether the ports a role listens on are free on the loopback, before it starts: a taken one is named. */
final class FreePorts {
  private FreePorts() {}

  /** Waits until the ports of {@code role} are free (its last process let them go), at most {@code timeout}. */
  static void await(ClusterLayout layout, String role, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      try {
        check(layout, List.of(role));
        return;
      } catch (IOException stillTaken) {
        try {
          Thread.sleep(250);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  /** Fails, naming each, if a TCP port of {@code roles} is taken or G-Store's UDP range lacks a port per server. */
  static void check(ClusterLayout layout, List<String> roles) throws IOException {
    List<String> taken = new ArrayList<>();
    for (String role : roles) {
      layout.ports(role).forEach((name, port) -> {
        if (!tcpFree(port)) {
          taken.add(role + " " + name + " " + port + "/tcp");
        }
      });
    }
    long needed = roles.stream().filter(ClusterLayout::isRegionServer).count();
    if (needed > 0) {
      int[] udp = layout.udpPorts();
      long free = IntStream.rangeClosed(udp[0], udp[1]).filter(FreePorts::udpFree).count();
      if (free < needed) {
        taken.add("G-Store's UDP range " + udp[0] + "-" + udp[1] + " (" + free + " free for " + needed + ")");
      }
    }
    if (!taken.isEmpty()) {
      throw new IOException("ports taken by another program: " + taken + "; stop it, or pick other ports with"
          + " --base-port");
    }
  }

  private static boolean tcpFree(int port) {
    try (ServerSocket s = new ServerSocket()) {
      s.setReuseAddress(true);
      s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static boolean udpFree(int port) {
    try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), port))) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
