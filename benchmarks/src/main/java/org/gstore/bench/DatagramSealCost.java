package org.gstore.bench;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.gstore.common.protocol.Datagram;
import org.gstore.common.protocol.GroupId;
import org.gstore.common.protocol.GroupRef;
import org.gstore.common.protocol.Join;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.Message;
import org.gstore.common.protocol.NodeId;
import org.gstore.common.protocol.Uid;
import org.gstore.common.wire.DatagramCodec;
import org.gstore.common.wire.DatagramProtection;

/**
 * What protecting one datagram costs, clear (HMAC-SHA256) against encrypted (AES-256-GCM): a datagram of the size a
 * group's create sends to one server (K/3 joins of a K=50 group), encoded and decoded on one thread, warm, in
 * alternating rounds so that both see the same machine. Prints microseconds per encode and decode, and the
 * bytes. Arguments: rounds (10), joins in the datagram (17).
 * {@code java -cp 'gstore-dist/target/gstore/lib/*:gstore-dist/target/gstore/lib/gstore/*'
 * org.gstore.bench.DatagramSealCost 10 17}.
 */
public final class DatagramSealCost {
  private DatagramSealCost() {}

  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
    int members = args.length > 1 ? Integer.parseInt(args[1]) : 17;
    byte[] secret = "a-cluster-secret-of-some-length".getBytes(StandardCharsets.UTF_8);
    Datagram datagram = createsJoins(members);
    DatagramCodec[] codecs = new DatagramCodec[2];
    for (DatagramProtection p : DatagramProtection.values()) {
      codecs[p.ordinal()] = new DatagramCodec(secret, null, DatagramCodec.VERSION, 60_000, 60_000,
          System::currentTimeMillis, p);
    }
    long[][] nanos = new long[2][rounds];
    for (int round = -5; round < rounds; round++) { // five rounds to warm up, not counted
      for (DatagramProtection p : DatagramProtection.values()) {
        long perFrame = measure(codecs[p.ordinal()], datagram, 20_000);
        if (round >= 0) {
          nanos[p.ordinal()][round] = perFrame;
        }
      }
    }
    for (DatagramProtection p : DatagramProtection.values()) {
      long[] sorted = nanos[p.ordinal()].clone();
      Arrays.sort(sorted);
      System.out.printf("%-9s %5d bytes, encode+decode %6.2f us (median of %d rounds; %.2f-%.2f)%n", p,
          codecs[p.ordinal()].encode(datagram).length, sorted[rounds / 2] / 1e3, rounds, sorted[0] / 1e3,
          sorted[rounds - 1] / 1e3);
    }
  }

  /** Nanoseconds per encode and decode of {@code d}, over {@code n} of them. */
  private static long measure(DatagramCodec codec, Datagram d, int n) throws Exception {
    long sink = 0;
    long start = System.nanoTime();
    for (int i = 0; i < n; i++) {
      byte[] frame = codec.encode(d);
      sink += codec.decode(frame, 0, frame.length).messages().size();
    }
    long perFrame = (System.nanoTime() - start) / n;
    if (sink != (long) n * d.messages().size()) {
      throw new AssertionError("decoded " + sink + " messages");
    }
    return perFrame;
  }

  /** A create's joins to one member server: {@code members} rows of 16-byte keys, one group of a 24-byte name. */
  private static Datagram createsJoins(int members) {
    NodeId leader = new NodeId("host-1.example.com,16020,1700000000000");
    GroupRef group = new GroupRef(new GroupId("game-0000000000001234", Key.of("bench_players", "user000000000001")),
        new Uid(leader, 42));
    List<Message> joins = new ArrayList<>();
    for (int i = 0; i < members; i++) {
      joins.add(new Join(group, Key.of("bench_players", String.format("user%012d", i * 7919L))));
    }
    return new Datagram(leader, new NodeId("host-2.example.com,16020,1700000000000"), joins, List.of());
  }
}
