package org.gstore.testing.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code gstore cluster start --secure} writes: a KDC role first, Kerberos in every server's configuration,
 * ZooKeeper's JAAS sections, and a client configuration that logs in from the keytab. (The cluster itself is tried
 * by hand: docs/operations.md, "A Kerberized cluster".)
 */
@Timeout(30)
class SecureSiteFilesTest {
  @TempDir
  Path dir;

  private ClusterLayout layout(boolean secure) {
    return new ClusterLayout(dir.resolve("cluster"), dir, 2, 23_000, Map.of(), secure);
  }

  private static Configuration read(Path file) {
    Configuration conf = new Configuration(false);
    conf.addResource(new org.apache.hadoop.fs.Path(file.toUri()));
    return conf;
  }

  @Test
  void aSecureClusterStartsItsKdcFirstAndEveryServerAuthenticatesWithKerberos() throws Exception {
    ClusterLayout layout = layout(true);
    assertThat(layout.roles()).startsWith(ClusterLayout.KDC, "zookeeper");
    assertThat(layout.ports(ClusterLayout.KDC)).containsEntry("kerberos", 23_008);
    new SiteFiles(layout).writeAll();

    Configuration rs = read(layout.roleDir("rs1").resolve("conf").resolve("hbase-site.xml"));
    assertThat(rs.get("hbase.security.authentication")).isEqualTo("kerberos");
    assertThat(rs.get("hbase.rpc.protection")).isEqualTo("privacy");
    assertThat(rs.get("hbase.regionserver.kerberos.principal")).isEqualTo("hbase/localhost@EXAMPLE.COM");
    assertThat(rs.get("hbase.coprocessor.master.classes")).contains("AccessController", "GStoreMasterObserver");
    assertThat(read(layout.roleDir("namenode").resolve("conf").resolve("hdfs-site.xml"))
        .get("dfs.namenode.keytab.file")).isEqualTo(SiteFiles.keytab(layout).toString());
    assertThat(Files.readString(layout.dir().resolve("jaas.conf"))).contains("Server {", "zookeeper/localhost",
        "Client {", "hbase/localhost");
    assertThat(Files.readString(layout.roleDir(ClusterLayout.KDC).resolve("conf").resolve("minikdc.properties")))
        .contains("kdc.port=23008");
    assertThat(SiteFiles.kerberosFlags(layout, "zookeeper")).anyMatch(f -> f.startsWith("-Djava.security.krb5.conf="))
        .contains("-Dzookeeper.kerberos.removeHostFromPrincipal=true");

    Configuration client = read(layout.clientSite());
    assertThat(client.get("hbase.client.keytab.principal")).isEqualTo("admin@EXAMPLE.COM");
    assertThat(client.get("hbase.client.keytab.file")).isEqualTo(SiteFiles.keytab(layout).toString());
    assertThat(client.get("hbase.master.kerberos.principal")).isEqualTo("hbase/localhost@EXAMPLE.COM");
    assertThat(client.get("hbase.regionserver.keytab.file")).as("no server keytab in a client's file").isNull();

    layout.save();
    assertThat(ClusterLayout.load(layout.dir())).isEqualTo(layout);
  }

  @Test
  void aClusterWithoutSecureModeHasNoKdcAndNoKerberos() throws Exception {
    ClusterLayout layout = layout(false);
    assertThat(layout.roles()).doesNotContain(ClusterLayout.KDC);
    new SiteFiles(layout).writeAll();
    assertThat(read(layout.roleDir("rs1").resolve("conf").resolve("hbase-site.xml"))
        .get("hbase.security.authentication")).isNull();
    assertThat(read(layout.clientSite()).get("hbase.client.keytab.file")).isNull();
    assertThat(layout.dir().resolve("jaas.conf")).doesNotExist();
  }
}
