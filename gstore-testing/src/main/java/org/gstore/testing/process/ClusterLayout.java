package org.gstore.testing.process;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * What a process cluster is made of, and where: its working directory, the distribution it runs from, how many
 * region servers it has, the first of its ports, and extra configuration for every HBase process. Saved as
 * {@code cluster.properties} in the working directory so later commands find the same cluster.
 *
 * <p>Ports, counted from {@code basePort}: 0 ZooKeeper, 1 NameNode RPC, 2 NameNode HTTP, 3–5 DataNode data, IPC
 * and HTTP, 6–7 HMaster RPC and info, 8 the KDC of a secure cluster; region server {@code i} (1-based) has
 * {@code 10i} and {@code 10i+1} (info). G-Store's UDP ports are the range 100–109, which all region servers share in one configuration value,
 * each taking the first free port (as several region servers on one host would).
 */
public record ClusterLayout(Path dir, Path home, int regionServers, int basePort, Map<String, String> settings,
    boolean secure) {
  /** The roles that are not region servers, in start order (a secure cluster starts its {@code kdc} first). */
  public static final List<String> CORE_ROLES = List.of("zookeeper", "namenode", "datanode", "master");
  /** The role of a secure cluster's Kerberos KDC. */
  public static final String KDC = "kdc";
  private static final String FILE = "cluster.properties";

  public ClusterLayout {
    if (regionServers < 1 || regionServers > 9) {
      throw new IllegalArgumentException("region servers must be 1 to 9, not " + regionServers);
    }
    if (basePort < 1024 || basePort + 109 > 65_535) {
      throw new IllegalArgumentException("base port " + basePort + " leaves no room for the cluster's ports");
    }
    dir = dir.toAbsolutePath().normalize();
    home = home.toAbsolutePath().normalize();
    settings = Map.copyOf(settings);
  }

  /** A cluster without Kerberos. */
  public ClusterLayout(Path dir, Path home, int regionServers, int basePort, Map<String, String> settings) {
    this(dir, home, regionServers, basePort, settings, false);
  }

  /** This layout with {@code n} region servers (a server added or removed while the cluster runs). */
  public ClusterLayout withRegionServers(int n) {
    return new ClusterLayout(dir, home, n, basePort, settings, secure);
  }

  /** Every role, in start order: the core roles, then {@code rs1} to {@code rsN}. */
  public List<String> roles() {
    List<String> roles = new ArrayList<>();
    if (secure) {
      roles.add(KDC);
    }
    roles.addAll(CORE_ROLES);
    for (int i = 1; i <= regionServers; i++) {
      roles.add(regionServer(i));
    }
    return roles;
  }

  public static String regionServer(int index) {
    return "rs" + index;
  }

  public static boolean isRegionServer(String role) {
    return role.matches("rs[1-9]");
  }

  public int zookeeperPort() {
    return basePort;
  }

  public int nameNodePort() {
    return basePort + 1;
  }

  /** The TCP ports a role listens on, by name. */
  public Map<String, Integer> ports(String role) {
    Map<String, Integer> ports = new LinkedHashMap<>();
    switch (role) {
      case "zookeeper" -> ports.put("client", basePort);
      case KDC -> ports.put("kerberos", basePort + 8);
      case "namenode" -> {
        ports.put("rpc", basePort + 1);
        ports.put("http", basePort + 2);
      }
      case "datanode" -> {
        ports.put("data", basePort + 3);
        ports.put("ipc", basePort + 4);
        ports.put("http", basePort + 5);
      }
      case "master" -> {
        ports.put("rpc", basePort + 6);
        ports.put("info", basePort + 7);
      }
      default -> {
        int i = regionServerIndex(role);
        ports.put("rpc", basePort + 10 * i);
        ports.put("info", basePort + 10 * i + 1);
      }
    }
    return ports;
  }

  /** The first and last of the UDP ports that region servers take G-Store's protocol port from. */
  public int[] udpPorts() {
    return new int[] {basePort + 100, basePort + 109};
  }

  int regionServerIndex(String role) {
    if (!isRegionServer(role) || Integer.parseInt(role.substring(2)) > regionServers) {
      throw new IllegalArgumentException("no role '" + role + "' in this cluster (roles: " + roles() + ")");
    }
    return Integer.parseInt(role.substring(2));
  }

  /** The directory of one role: its conf/, data/, log and PID file. */
  public Path roleDir(String role) {
    return dir.resolve(role);
  }

  /** The client's {@code hbase-site.xml}. */
  public Path clientSite() {
    return dir.resolve("hbase-site.xml");
  }

  void save() throws IOException {
    Properties p = new Properties();
    p.setProperty("home", home.toString());
    p.setProperty("regionServers", Integer.toString(regionServers));
    p.setProperty("basePort", Integer.toString(basePort));
    p.setProperty("secure", Boolean.toString(secure));
    settings.forEach((k, v) -> p.setProperty("set." + k, v));
    Files.createDirectories(dir);
    try (Writer w = Files.newBufferedWriter(dir.resolve(FILE))) {
      p.store(w, "G-Store process cluster: written by 'gstore cluster start'");
    }
  }

  /** The layout saved in {@code dir}; fails if no cluster was ever started there. */
  static ClusterLayout load(Path dir) throws IOException {
    Path file = dir.resolve(FILE);
    if (!Files.exists(file)) {
      throw new IOException("no cluster in " + dir.toAbsolutePath() + " (no " + FILE + "); start one with"
          + " 'gstore cluster start --dir " + dir + "'");
    }
    Properties p = new Properties();
    try (Reader r = Files.newBufferedReader(file)) {
      p.load(r);
    }
    Map<String, String> settings = new TreeMap<>();
    for (String name : p.stringPropertyNames()) {
      if (name.startsWith("set.")) {
        settings.put(name.substring(4), p.getProperty(name));
      }
    }
    return new ClusterLayout(dir, Path.of(p.getProperty("home")), Integer.parseInt(p.getProperty("regionServers")),
        Integer.parseInt(p.getProperty("basePort")), settings, Boolean.parseBoolean(p.getProperty("secure")));
  }
}
