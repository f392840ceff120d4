package org.gstore.testing.process;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hbase.security.access.AccessController;
import org.gstore.testing.security.KerberosRealm;
import org.gstore.testing.security.KerberosSettings;

/**
 * Writes each role's configuration directory ({@code core-site.xml}, {@code hdfs-site.xml}, {@code hbase-site.xml},
 * {@code log4j.properties}, and {@code zoo.cfg} for ZooKeeper) and the client's {@code hbase-site.xml}. Everything
 * binds to and advertises the loopback address. G-Store's keys are the ones docs/operations.md gives an operator,
 * and nothing more: the process-cluster tests check that those instructions are enough.
 */
final class SiteFiles {
  static final String SECRET_FILE = "gstore.secret";
  /** A secure cluster's realm, as its KDC names it. */
  static final String REALM = "EXAMPLE.COM";
  /** The user clients of a secure cluster log in as: an HBase superuser, for the demo and the chaos run. */
  static final String CLIENT_USER = "admin";
  private final ClusterLayout layout;

  SiteFiles(ClusterLayout layout) {
    this.layout = layout;
  }

  /** The cluster secret, made once: a file only this user can read, as docs/operations.md asks. */
  void writeSecretOnce() throws IOException {
    Path file = layout.dir().resolve(SECRET_FILE);
    if (Files.exists(file)) {
      return;
    }
    byte[] secret = new byte[32];
    new SecureRandom().nextBytes(secret);
    Files.createDirectories(layout.dir());
    Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(file, Base64.getEncoder().encodeToString(secret) + "\n");
  }

  void writeAll() throws IOException {
    for (String role : layout.roles()) {
      write(role);
    }
    Files.writeString(layout.clientSite(), xml("A client of the G-Store process cluster in " + layout.dir(),
        clientSettings()));
  }

  /** The directory to put first on {@code role}'s classpath. */
  Path confDir(String role) {
    return layout.roleDir(role).resolve("conf");
  }

  private void write(String role) throws IOException {
    Path conf = confDir(role);
    Files.createDirectories(conf);
    Path data = layout.roleDir(role).resolve("data");
    Files.createDirectories(data);
    Files.writeString(conf.resolve("core-site.xml"), xml("Hadoop, for " + role, core(role)));
    Files.writeString(conf.resolve("hdfs-site.xml"), xml("HDFS, for " + role, hdfs()));
    Files.writeString(conf.resolve("hbase-site.xml"), xml("HBase, for " + role, hbase(role)));
    Files.writeString(conf.resolve("log4j.properties"), """
        log4j.rootLogger=INFO,stdout
        log4j.appender.stdout=org.apache.log4j.ConsoleAppender
        log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
        log4j.appender.stdout.layout.ConversionPattern=%d{ISO8601} %p [%t] %c{2}: %m%n
        log4j.logger.org.apache.hadoop.metrics2=WARN
        log4j.logger.org.apache.hadoop.util.NativeCodeLoader=ERROR
        """);
    if (layout.secure()) {
      writeKerberos(role, conf);
    }
    if (role.equals("zookeeper")) {
      Files.writeString(conf.resolve("zoo.cfg"), String.join("\n",
          "dataDir=" + data,
          "clientPort=" + layout.zookeeperPort(),
          "clientPortAddress=127.0.0.1",
          "tickTime=2000",
          "maxClientCnxns=0",
          "admin.enableServer=false",
          "4lw.commands.whitelist=ruok,stat,srvr",
          ""));
    }
  }

  private Map<String, String> core(String role) {
    Map<String, String> c = new LinkedHashMap<>();
    c.put("fs.defaultFS", "hdfs://127.0.0.1:" + layout.nameNodePort());
    c.put("hadoop.tmp.dir", layout.roleDir(role).resolve("tmp").toString());
    c.putAll(kerberos());
    return c;
  }

  /** Everything a secure cluster's servers share (none for another cluster). */
  private Map<String, String> kerberos() {
    return layout.secure()
        ? KerberosSettings.services(REALM, keytab(layout).toString(), CLIENT_USER) : Map.of();
  }

  /** The KDC's settings, and the JAAS sections every server logs in to ZooKeeper with (or serves it with). */
  private void writeKerberos(String role, Path conf) throws IOException {
    if (role.equals(ClusterLayout.KDC)) {
      Files.writeString(conf.resolve("minikdc.properties"), String.join("\n",
          "org.name=EXAMPLE", "org.domain=COM", "kdc.bind.address=localhost",
          "kdc.port=" + layout.ports(role).get("kerberos"), "debug=false", ""));
      return;
    }
    String keytab = keytab(layout).toString();
    Files.writeString(jaas(layout), "Server {\n" + login(KerberosSettings.principal("zookeeper", REALM), keytab)
        + "};\nClient {\n" + login(KerberosSettings.principal("hbase", REALM), keytab) + "};\n");
  }

  /** The JAAS file form of the login the mini cluster installs in code ({@link KerberosRealm#keytabLogin}). */
  private static String login(String principal, String keytab) {
    javax.security.auth.login.AppConfigurationEntry entry = KerberosRealm.keytabLogin(principal,
        new java.io.File(keytab));
    StringBuilder line = new StringBuilder("  ").append(entry.getLoginModuleName()).append(" required");
    entry.getOptions().forEach((k, v) -> line.append(' ').append(k).append("=\"").append(v).append('"'));
    return line.append(";\n").toString();
  }

  /** The keytab the KDC writes: every service principal's, and the client user's. */
  static Path keytab(ClusterLayout layout) {
    return layout.dir().resolve("cluster.keytab");
  }

  /** The {@code krb5.conf} the KDC writes, naming its realm and port. */
  static Path krb5Conf(ClusterLayout layout) {
    return layout.roleDir(ClusterLayout.KDC).resolve("data").resolve("krb5.conf");
  }

  private static Path jaas(ClusterLayout layout) {
    return layout.dir().resolve("jaas.conf");
  }

  /** How a user reaches a secure cluster: the JVM flag that names the KDC, who the client logs in as, from where. */
  static String kerberosInstructions(ClusterLayout layout) {
    String user = CLIENT_USER + "@" + REALM;
    return "Kerberos realm " + REALM + ", KDC on localhost:" + layout.ports(ClusterLayout.KDC).get("kerberos")
        + "; clients log in as " + user + " (an HBase superuser) from " + keytab(layout) + ", as the client"
        + " hbase-site.xml says. Tell the JVM where the KDC is:\n"
        + "  export GSTORE_OPTS=-Djava.security.krb5.conf=" + krb5Conf(layout) + "\n"
        + "  ./gstore demo --conf " + layout.clientSite() + "\n"
        + "or, with MIT Kerberos' tools: KRB5_CONFIG=" + krb5Conf(layout) + " kinit -kt " + keytab(layout) + " "
        + user;
  }

  /** The JVM flags of a secure cluster's server process {@code role}: where the KDC is, its JAAS sections. */
  static List<String> kerberosFlags(ClusterLayout layout, String role) {
    List<String> flags = new ArrayList<>(List.of("-Djava.security.krb5.conf=" + krb5Conf(layout),
        "-Djava.security.auth.login.config=" + jaas(layout),
        "-Dzookeeper.server.principal=" + KerberosSettings.principal("zookeeper", REALM)));
    if (role.equals("zookeeper")) {
      KerberosSettings.zookeeperServerProperties().forEach((k, v) -> flags.add("-D" + k + "=" + v));
    }
    return flags;
  }

  private Map<String, String> hdfs() {
    Map<String, Integer> nn = layout.ports("namenode");
    Map<String, Integer> dn = layout.ports("datanode");
    Map<String, String> c = new LinkedHashMap<>();
    c.put("dfs.namenode.name.dir", layout.roleDir("namenode").resolve("data").toString());
    c.put("dfs.datanode.data.dir", layout.roleDir("datanode").resolve("data").toString());
    c.put("dfs.namenode.rpc-address", "127.0.0.1:" + nn.get("rpc"));
    c.put("dfs.namenode.http-address", "127.0.0.1:" + nn.get("http"));
    c.put("dfs.datanode.address", "127.0.0.1:" + dn.get("data"));
    c.put("dfs.datanode.ipc.address", "127.0.0.1:" + dn.get("ipc"));
    c.put("dfs.datanode.http.address", "127.0.0.1:" + dn.get("http"));
    c.put("dfs.datanode.hostname", "127.0.0.1");
    c.put("dfs.replication", "1");
    c.put("dfs.namenode.safemode.extension", "0");
    c.put("dfs.permissions.enabled", "false");
    // one DataNode: a pipeline cannot replace a failed one
    c.put("dfs.client.block.write.replace-datanode-on-failure.enable", "false");
    c.putAll(kerberos());
    return c;
  }

  private Map<String, String> hbase(String role) {
    Map<String, String> c = clusterWide();
    Map<String, Integer> master = layout.ports("master");
    c.put("hbase.rootdir", "hdfs://127.0.0.1:" + layout.nameNodePort() + "/hbase");
    c.put("hbase.tmp.dir", layout.roleDir(role).resolve("tmp").toString());
    c.put("hbase.master.port", master.get("rpc").toString());
    c.put("hbase.master.info.port", master.get("info").toString());
    c.put("hbase.master.ipc.address", "127.0.0.1");
    c.put("hbase.master.info.bindAddress", "127.0.0.1");
    c.put("hbase.regionserver.ipc.address", "127.0.0.1");
    c.put("hbase.regionserver.info.bindAddress", "127.0.0.1");
    if (ClusterLayout.isRegionServer(role)) {
      Map<String, Integer> rs = layout.ports(role);
      c.put("hbase.regionserver.port", rs.get("rpc").toString());
      c.put("hbase.regionserver.info.port", rs.get("info").toString());
    }
    // G-Store, installed as docs/operations.md says (the jar is on this process's classpath)
    c.put("hbase.coprocessor.user.region.classes", "org.gstore.coprocessor.GStoreRegionCoprocessor");
    c.put("hbase.coprocessor.master.classes", "org.gstore.coprocessor.GStoreMasterObserver");
    c.put("gstore.cluster.secret.file", layout.dir().resolve(SECRET_FILE).toString());
    c.put("gstore.udp.bind.address", "127.0.0.1");
    c.put("hbase.skip.load.duplicate.table.coprocessor", "true");
    c.put("gstore.test.faults.enabled", "true"); // a test cluster: chaos runs partition servers and skew clocks
    // one range for all region servers of this host: each takes the first free port
    c.put("gstore.udp.port", layout.udpPorts()[0] + "-" + layout.udpPorts()[1]);
    c.putAll(kerberos());
    if (layout.secure()) {
      c.put("hbase.coprocessor.master.classes", AccessController.class.getName() + ","
          + c.get("hbase.coprocessor.master.classes"));
    }
    c.putAll(layout.settings());
    return c;
  }

  /** What a client's {@code hbase-site.xml} holds. */
  Map<String, String> clientSettings() {
    Map<String, String> c = clusterWide();
    if (layout.secure()) {
      c.putAll(KerberosSettings.clients(REALM));
      // HBase's client logs in from these when it connects (AuthUtil.loginClient)
      c.put("hbase.client.keytab.file", keytab(layout).toString());
      c.put("hbase.client.keytab.principal", CLIENT_USER + "@" + REALM);
    }
    c.putAll(layout.settings());
    return c;
  }

  /** What every HBase process and client shares: how to find the cluster. */
  private Map<String, String> clusterWide() {
    Map<String, String> c = new LinkedHashMap<>();
    c.put("hbase.cluster.distributed", "true");
    c.put("hbase.zookeeper.quorum", "127.0.0.1");
    c.put("hbase.zookeeper.property.clientPort", Integer.toString(layout.zookeeperPort()));
    // a killed region server is noticed in seconds, not the default 90 s
    c.put("zookeeper.session.timeout", "10000");
    return c;
  }

  static String xml(String comment, Map<String, String> properties) {
    StringBuilder s = new StringBuilder("<?xml version=\"1.0\"?>\n<!-- ").append(comment).append(" -->\n");
    s.append("<configuration>\n");
    properties.forEach((k, v) -> s.append("  <property><name>").append(escape(k)).append("</name><value>")
        .append(escape(v)).append("</value></property>\n"));
    return s.append("</configuration>\n").toString();
  }

  private static String escape(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}
