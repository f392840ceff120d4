package org.gstore.testing.process;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;

/**
 * How one role's JVM is launched: its main class, its arguments and its JVM flags, as the layout says; and the
 * NameNode's one-time format.
 */
record RoleLaunch(String className, List<String> args, List<String> flags) {
  /** The launch of {@code role}; an unknown role fails, naming the roles there are. */
  static RoleLaunch of(ClusterLayout layout, String role) throws IOException {
    if (!layout.roles().contains(role)) {
      throw new IllegalArgumentException("no role '" + role + "' in this cluster (roles: " + layout.roles() + ")");
    }
    List<String> flags = jvmFlags(layout, role);
    return switch (role) {
      case ClusterLayout.KDC -> new RoleLaunch("org.apache.hadoop.minikdc.MiniKdc", List.of(
          layout.roleDir(role).resolve("data").toString(), new SiteFiles(layout).confDir(role)
              .resolve("minikdc.properties").toString(), SiteFiles.keytab(layout).toString(),
          "hbase/localhost", "HTTP/localhost", "zookeeper/localhost", SiteFiles.CLIENT_USER), flags);
      case "zookeeper" -> new RoleLaunch("org.apache.zookeeper.server.ZooKeeperServerMain",
          List.of(new SiteFiles(layout).confDir(role).resolve("zoo.cfg").toString()), flags);
      case "namenode" -> new RoleLaunch("org.apache.hadoop.hdfs.server.namenode.NameNode", List.of(), flags);
      case "datanode" -> new RoleLaunch("org.apache.hadoop.hdfs.server.datanode.DataNode", List.of(), flags);
      case "master" -> new RoleLaunch("org.apache.hadoop.hbase.master.HMaster", List.of("start"), flags);
      default -> new RoleLaunch("org.apache.hadoop.hbase.regionserver.HRegionServer", List.of("start"), flags);
    };
  }

  private static List<String> jvmFlags(ClusterLayout layout, String role) throws IOException {
    List<String> flags = new ArrayList<>();
    // 1 GB: with 768 MB a region server that took over every region while the two others were down (a kill, then
    // a pause) ran out of heap during their recovery, its block cache and memstores taking HBase's default 80%
    flags.add(ClusterLayout.isRegionServer(role) ? "-Xmx1g" : "-Xmx384m");
    flags.add("-XX:+UseG1GC");
    // as HBase's own scripts do: a server out of heap stops at once (its threads die one by one otherwise, and
    // it lingers half alive), leaving a heap dump beside its log to say what filled it
    flags.add("-XX:+ExitOnOutOfMemoryError");
    flags.add("-XX:+HeapDumpOnOutOfMemoryError");
    flags.add("-XX:HeapDumpPath=" + layout.roleDir(role));
    flags.add("-Djava.net.preferIPv4Stack=true");
    flags.add("-Dlog4j.configuration=file:" + layout.roleDir(role).resolve("conf").resolve("log4j.properties"));
    for (String f : Files.readString(layout.home().resolve("conf").resolve("jvm.options")).trim().split("\\s+")) {
      if (!f.isEmpty()) {
        flags.add(f);
      }
    }
    if (layout.secure() && !role.equals(ClusterLayout.KDC)) {
      flags.addAll(SiteFiles.kerberosFlags(layout, role));
    }
    return List.copyOf(flags);
  }

  /** Formats HDFS the first time only: a NameNode directory that has been formatted has {@code current/}. */
  static void formatOnce(ClusterLayout layout, List<String> flags, PrintStream log) throws IOException {
    if (Files.exists(layout.roleDir("namenode").resolve("data").resolve("current"))) {
      return;
    }
    NodeProcess format = new NodeProcess(layout, "namenode");
    log.println("formatting HDFS");
    List<String> command = new ArrayList<>();
    command.add(ProcessHandle.current().info().command().orElse("java"));
    command.addAll(flags);
    command.add("-cp");
    command.add(String.join(java.io.File.pathSeparator, layout.roleDir("namenode").resolve("conf").toString(),
        layout.home().resolve("lib").resolve("*").toString()));
    command.add("org.apache.hadoop.hdfs.server.namenode.NameNode");
    command.add("-format");
    command.add("-nonInteractive");
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(format.log().toFile())).start();
      if (p.waitFor() != 0) {
        throw new IOException("formatting HDFS failed:\n" + format.logTail(30));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while formatting HDFS", e);
    }
  }
}
