package org.gstore.bench.ycsb;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.gstore.bench.omid.OmidSettings;
import org.gstore.bench.omid.OmidTso;
import org.gstore.testing.GStoreTables;
import org.gstore.testing.GStoreMiniCluster;
import org.gstore.testing.junit.WithMiniCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The three bindings (plain HBase, G-Store, Apache Omid) through YCSB's standard client ({@code site.ycsb.Client}), in a child JVM exactly as a user runs
 * it: load, then a 50/50 read/update run; the rows written and the operations counted are checked.
 */
@WithMiniCluster(regionServers = 3)
class YcsbBindingIT {
  private static final byte[] FAMILY = Bytes.toBytes("family");

  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void theBindingsRunYcsbsStandardClient(GStoreMiniCluster cluster, @TempDir Path dir) throws Exception {
    Path site = cluster.writeSiteFile(dir.resolve("hbase-site.xml"));
    Path workload = dir.resolve("workload");
    Files.writeString(workload, String.join("\n",
        "workload=site.ycsb.workloads.CoreWorkload", "recordcount=200", "operationcount=300", "fieldcount=2",
        "readproportion=0.5", "updateproportion=0.5", "scanproportion=0", "insertproportion=0",
        "requestdistribution=uniform", "readallfields=true"));

    try (OmidTso tso = OmidTso.start(cluster.getConnection(), OmidSettings.BEST, dir.resolve("omid"))) {
      for (String binding : List.of("HBaseYcsbClient", "GStoreYcsbClient", "OmidYcsbClient")) {
        runBinding(cluster, dir, site, workload, binding, tso.address());
      }
    }
  }

  private static void runBinding(GStoreMiniCluster cluster, Path dir, Path site, Path workload, String binding,
      String tso) throws Exception {
    {
      TableName table = TableName.valueOf("ycsb_" + binding.toLowerCase());
      createTable(cluster, table);
      String db = "org.gstore.bench.ycsb." + binding;
      String load = ycsb(dir, "-load", "-db", db, "-P", workload.toString(), "-p", "table=" + table,
          "-p", "columnfamily=family", "-p", "hbase.conf=" + site, "-threads", "2", "-p", "omid.tso=" + tso);
      assertThat(load).contains("[INSERT], Operations, 200").contains("[INSERT], Return=OK, 200");
      assertThat(GStoreTables.rowCount(cluster.getConnection(), table)).as("rows loaded by " + binding).isEqualTo(200);

      String run = ycsb(dir, "-t", "-db", db, "-P", workload.toString(), "-p", "table=" + table,
          "-p", "columnfamily=family", "-p", "hbase.conf=" + site, "-threads", "3",
          "-p", "gstore.groupsize=8", "-p", "gstore.opspergroup=25", "-p", "gstore.txnsize=2",
          "-p", "omid.tso=" + tso, "-p", "omid.txnsize=2");
      assertThat(run).contains("[OVERALL], RunTime(ms)");
      // YCSB counts an operation that did not return OK under <OP>-FAILED: here only conflicts (TXN_ABORTED)
      assertThat(count(run, "[READ], Operations") + count(run, "[UPDATE], Operations")
          + count(run, "[READ-FAILED], Operations") + count(run, "[UPDATE-FAILED], Operations"))
          .as(binding + ":%n%s", run).isEqualTo(300);
      assertThat(run).doesNotContain("Return=ERROR");
      if (binding.startsWith("GStore")) {
        assertThat(count(run, "[GROUP-CREATE], Operations")).as("a new group every 25 operations per thread")
            .isGreaterThanOrEqualTo(12);
      }
      assertThat(GStoreTables.rowCount(cluster.getConnection(), table)).as("no row appeared or vanished").isEqualTo(200);
    }
  }

  /** With G-Store, split in three regions, keeping every version as Omid needs (harmless for the others). */
  private static void createTable(GStoreMiniCluster cluster, TableName table) throws IOException {
    try (Admin admin = cluster.getConnection().getAdmin()) {
      admin.createTable(TableDescriptorBuilder.newBuilder(table)
          .setCoprocessor("org.gstore.coprocessor.GStoreRegionCoprocessor").setColumnFamily(
          ColumnFamilyDescriptorBuilder.newBuilder(FAMILY).setMaxVersions(Integer.MAX_VALUE).build()).build(),
          new byte[][] {Bytes.toBytes("user4"), Bytes.toBytes("user7")});
    }
  }

  private static long count(String output, String prefix) {
    return output.lines().filter(l -> l.startsWith(prefix + ", ")).mapToLong(l -> Long.parseLong(
        l.substring(l.lastIndexOf(',') + 1).trim())).sum();
  }


  /** Runs {@code site.ycsb.Client} in a child JVM with this test's classpath and JVM flags; returns its output. */
  private static String ycsb(Path dir, String... args) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(ProcessHandle.current().info().command().orElse("java"));
    for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (a.startsWith("--add-") || a.startsWith("-Dorg.apache.hbase")) {
        command.add(a);
      }
    }
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add("site.ycsb.Client");
    command.addAll(List.of(args));
    File output = dir.resolve("ycsb-" + System.nanoTime() + ".out").toFile();
    Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output).start();
    if (!p.waitFor(3, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new AssertionError("YCSB did not finish: " + Files.readString(output.toPath()));
    }
    String text = Files.readString(output.toPath(), StandardCharsets.UTF_8);
    assertThat(p.exitValue()).as(text).isZero();
    return text;
  }
}
