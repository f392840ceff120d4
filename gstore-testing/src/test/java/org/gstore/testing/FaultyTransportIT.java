package org.gstore.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.metrics.Counter;
import org.apache.hadoop.hbase.metrics.MetricRegistries;
import org.apache.hadoop.hbase.metrics.MetricRegistry;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.zookeeper.ZKUtil;
import org.apache.hadoop.hbase.zookeeper.ZKWatcher;
import org.awaitility.Awaitility;
import org.gstore.client.GStoreClient;
import org.gstore.client.GroupSpec;
import org.gstore.client.KeyGroup;
import org.gstore.common.protocol.Datagram;
import org.gstore.common.protocol.GroupId;
import org.gstore.common.protocol.GroupPhase;
import org.gstore.common.protocol.GroupRef;
import org.gstore.common.protocol.Join;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.NodeId;
import org.gstore.common.protocol.Uid;
import org.gstore.common.wire.ClusterKeys;
import org.gstore.common.wire.DatagramCodec;
import org.gstore.coprocessor.transport.DatagramFaults;
import org.gstore.testing.junit.WithMiniCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The protocol over a lossy network inside real region servers, and what arrives on the port that is not ours. */
@WithMiniCluster(regionServers = 3)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class FaultyTransportIT {
  private static final byte[] CF = Bytes.toBytes("f");

  @AfterEach
  void healNetwork() {
    DatagramFaults.clear();
  }

  @Test
  void groupsFormAndDissolveWhenDatagramsAreLostAndDuplicated(GStoreMiniCluster cluster) throws Exception {
    TableName name = TableName.valueOf("lossy_rows");
    cluster.createTable(name, new byte[][] {CF}, TestRows.splits(6)).close();
    DatagramFaults.inject(0.3, 0.2);
    try (GStoreClient client = GStoreClient.create(cluster.getConnection())) {
      for (int g = 0; g < 8; g++) {
        List<byte[]> rows = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
          rows.add(TestRows.row(g * 10 + i));
        }
        KeyGroup group = client.createGroup(GroupSpec.builder().id("lossy-" + g).members(name, rows).build());
        assertThat(group.members()).hasSize(6);
        group.delete();
      }
    }
    assertThat(StateTablesView.owners(cluster).stream().filter(o -> o.key().table().equals("lossy_rows")))
        .isEmpty();
  }

  @Test
  void aGroupStillBeingCreatedIsWaitedForNotReportedMissing(GStoreMiniCluster cluster) throws Exception {
    TableName name = TableName.valueOf("slow_rows");
    cluster.createTable(name, new byte[][] {CF}, TestRows.splits(6)).close();
    List<byte[]> rows = List.of(TestRows.row(0), TestRows.row(3), TestRows.row(6), TestRows.row(9));
    DatagramFaults.inject(1.0, 0); // the J to other servers are lost: the group stays CREATING
    try (GStoreClient creator = GStoreClient.create(cluster.getConnection());
        GStoreClient reader = GStoreClient.create(cluster.getConnection())) {
      GroupSpec spec = GroupSpec.builder().id("slow").leader(name, rows.get(0)).members(name, rows).build();
      CompletableFuture<KeyGroup> created = CompletableFuture.supplyAsync(() -> call(() -> creator.createGroup(spec)));
      Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> StateTablesView.groups(cluster).stream()
          .anyMatch(g -> g.id().name().equals("slow") && g.phase() == GroupPhase.CREATING));
      CompletableFuture<KeyGroup> found = CompletableFuture.supplyAsync(
          () -> call(() -> reader.getGroup(org.gstore.client.GroupId.of("slow",
              org.gstore.client.RowKey.of(name, rows.get(0))))));
      Awaitility.await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5))
          .until(() -> !found.isDone()); // neither found nor reported missing while it is being created

      DatagramFaults.clear();
      KeyGroup group = created.get(60, TimeUnit.SECONDS);
      assertThat(found.get(60, TimeUnit.SECONDS).members()).isEqualTo(group.members());
      group.delete();
    }
  }

  private static <T> T call(java.util.concurrent.Callable<T> call) {
    try {
      return call.call();
    } catch (Exception e) {
      throw new java.util.concurrent.CompletionException(e);
    }
  }

  @Test
  void garbageForgedAndOversizedDatagramsAreDroppedCountedAndHarmless(GStoreMiniCluster cluster) throws Exception {
    InetSocketAddress peer = anyPeer(cluster);
    byte[] secret = cluster.clusterSecret();
    long malformed = dropped("Malformed");
    long unauthenticated = dropped("Unauthenticated");
    long unknownVersion = dropped("UnknownVersion");
    long oversized = dropped("Oversized");
    long misaddressed = dropped("Misaddressed");

    Datagram plausible = new Datagram(new NodeId("intruder"), new NodeId("victim"), List.of(new Join(
        new GroupRef(new GroupId("evil", Key.of("lossy_rows", "x")), new Uid(new NodeId("intruder"), 1)),
        Key.of("lossy_rows", "y"))), List.of());
    byte[] forged = new DatagramCodec("some-other-secret-here".getBytes(StandardCharsets.UTF_8), 60_000)
        .encode(plausible);
    byte[] authenticButForAnotherNode = new DatagramCodec(secret, 60_000).encode(plausible);
    byte[] otherVersion = new DatagramCodec(secret, 60_000).encode(plausible);
    otherVersion[2] = 9;
    resign(otherVersion, secret);
    byte[] garbage = new byte[500];
    new Random(1).nextBytes(garbage);
    try (DatagramSocket socket = new DatagramSocket()) {
      for (byte[] payload : List.of(garbage, "GS".getBytes(StandardCharsets.UTF_8), forged, otherVersion,
          new byte[61_000], authenticButForAnotherNode)) {
        socket.send(new DatagramPacket(payload, payload.length, peer));
      }
    }
    Awaitility.await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
      assertThat(dropped("Malformed")).isGreaterThanOrEqualTo(malformed + 2);
      assertThat(dropped("Unauthenticated")).isGreaterThanOrEqualTo(unauthenticated + 1);
      assertThat(dropped("UnknownVersion")).isGreaterThanOrEqualTo(unknownVersion + 1);
      assertThat(dropped("Oversized")).isGreaterThanOrEqualTo(oversized + 1);
      assertThat(dropped("Misaddressed")).isGreaterThanOrEqualTo(misaddressed + 1);
    });

    TableName name = TableName.valueOf("after_garbage");
    cluster.createTable(name, new byte[][] {CF}, TestRows.splits(3)).close();
    try (GStoreClient client = GStoreClient.create(cluster.getConnection())) {
      KeyGroup g = client.createGroup(GroupSpec.builder().members(name,
          List.of(TestRows.row(1), TestRows.row(5), TestRows.row(8))).build());
      assertThat(g.members()).hasSize(3);
      g.delete();
    }
  }

  private static InetSocketAddress anyPeer(GStoreMiniCluster cluster) throws Exception {
    ZKWatcher zk = cluster.getTestingUtility().getZooKeeperWatcher();
    String peers = zk.getZNodePaths().baseZNode + "/gstore/peers";
    List<String> children = ZKUtil.listChildrenNoWatch(zk, peers);
    assertThat(children).as("peers published in ZooKeeper").hasSize(3);
    String hostPort = Bytes.toString(ZKUtil.getData(zk, peers + "/" + children.get(0)));
    int colon = hostPort.lastIndexOf(':');
    return new InetSocketAddress(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
  }

  /** Datagrams dropped for a reason, summed over the region servers of this JVM (they share the registry). */
  private static long dropped(String reason) {
    long total = 0;
    for (MetricRegistry registry : MetricRegistries.global().getMetricRegistries()) {
      if (registry.getMetricRegistryInfo().getMetricsJmxContext().contains("GStoreRegionCoprocessor")) {
        total += registry.get("datagramsDropped" + reason).map(m -> ((Counter) m).getCount()).orElse(0L);
      }
    }
    return total;
  }

  private static void resign(byte[] framed, byte[] secret) throws Exception {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(ClusterKeys.derive(secret, ClusterKeys.DATAGRAMS), "HmacSHA256"));
    mac.update(framed, 0, framed.length - 32);
    System.arraycopy(mac.doFinal(), 0, framed, framed.length - 32, 32);
  }
}
