package org.gstore.testing.process;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.testcontainers.containers.BindMode;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * The cluster of docker/compose.yml, started container by container with Testcontainers from the local image
 * {@code gstore:latest} (docker/build.sh makes it): ZooKeeper, HDFS NameNode and DataNode, HBase master and region
 * servers with G-Store. The containers share the host's network and use the process cluster's port layout from
 * {@code basePort}, on 127.0.0.1; each waits for the one before it to serve. Needs a Docker engine; with no image
 * registry reachable, {@code TESTCONTAINERS_RYUK_DISABLED=true} (its reaper image cannot be pulled), and then
 * {@link #close()} is what removes the containers.
 */
public final class GStoreContainerCluster implements AutoCloseable {
  public static final String IMAGE = "gstore:latest";
  private static final Duration START_TIMEOUT = Duration.ofMinutes(4);
  private final ClusterLayout layout;
  private final Path secret;
  private final List<GenericContainer<?>> containers = new ArrayList<>();

  private GStoreContainerCluster(ClusterLayout layout, Path secret) {
    this.layout = layout;
    this.secret = secret;
  }

  /** Starts a cluster with {@code regionServers} region servers on ports from {@code basePort}. */
  public static GStoreContainerCluster start(int regionServers, int basePort) throws IOException {
    Path dir = Files.createTempDirectory("gstore-containers");
    Path secret = dir.resolve("gstore.secret");
    Files.createFile(secret, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    byte[] bytes = new byte[32];
    new SecureRandom().nextBytes(bytes);
    Files.writeString(secret, Base64.getEncoder().encodeToString(bytes) + "\n");
    GStoreContainerCluster cluster = new GStoreContainerCluster(
        new ClusterLayout(dir, Path.of("/opt/gstore"), regionServers, basePort, Map.of()), secret);
    try {
      cluster.startAll();
    } catch (IOException | RuntimeException e) {
      cluster.close();
      throw e;
    }
    return cluster;
  }

  private void startAll() throws IOException {
    for (String role : layout.roles()) {
      GenericContainer<?> container = new GenericContainer<>(DockerImageName.parse(IMAGE))
          .withNetworkMode("host")
          .withCommand(role)
          .withEnv("GSTORE_BASE_PORT", Integer.toString(layout.basePort()))
          .withEnv("GSTORE_REGION_SERVERS", Integer.toString(layout.regionServers()))
          .withFileSystemBind(secret.toString(), "/etc/gstore/gstore.secret.in", BindMode.READ_ONLY)
          .withStartupTimeout(START_TIMEOUT);
      container.start();
      containers.add(container);
      switch (role) {
        case "zookeeper" -> await(container, "ZooKeeper", () -> ClusterProbe.accepts(layout.zookeeperPort()));
        case "namenode" -> await(container, "the NameNode", () -> ClusterProbe.accepts(layout.nameNodePort()));
        case "datanode" -> await(container, "HDFS with a live DataNode",
            () -> ClusterProbe.hdfsServes(layout.nameNodePort()));
        default -> await(container, role, () -> ClusterProbe.accepts(layout.ports(role).get("rpc")));
      }
    }
    ClusterProbe.awaitServing(configuration(), layout.regionServers(), START_TIMEOUT, this::checkRunning);
  }

  private void await(GenericContainer<?> container, String what, java.util.concurrent.Callable<Boolean> ready)
      throws IOException {
    ClusterProbe.await(what + " in container " + container.getContainerName(), START_TIMEOUT, () -> {
      checkRunning();
      return ready.call();
    });
  }

  private void checkRunning() throws IOException {
    for (GenericContainer<?> c : containers) {
      if (!c.isRunning()) {
        String logs = c.getLogs();
        throw new IOException("container " + c.getContainerName() + " stopped; the end of its output:\n"
            + logs.substring(Math.max(0, logs.length() - 4_000)));
      }
    }
  }

  /** A configuration that reaches the cluster (what docker/hbase-site.xml says for the compose cluster). */
  public Configuration configuration() {
    Configuration conf = HBaseConfiguration.create();
    new SiteFiles(layout).clientSettings().forEach(conf::set);
    return conf;
  }

  public ClusterLayout layout() {
    return layout;
  }

  /** The running container of {@code role}. */
  public GenericContainer<?> container(String role) {
    return containers.get(layout.roles().indexOf(role));
  }

  /** Stops and removes every container, region servers first. */
  @Override
  public void close() {
    for (int i = containers.size() - 1; i >= 0; i--) {
      containers.get(i).stop();
    }
    containers.clear();
  }
}
