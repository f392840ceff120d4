package org.gstore.testing.security;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.hbase.coprocessor.CoprocessorHost;
import org.apache.hadoop.hbase.security.access.AccessController;

/**
 * The settings of a cluster whose services all run as {@code hbase/localhost@REALM} from one keytab: Kerberos for
 * Hadoop, HDFS and HBase, the {@code AccessController}, RPC encrypted. The mini cluster ({@link SecureMode}) and
 * the process cluster ({@code gstore cluster start --secure}) both use them.
 */
public final class KerberosSettings {
  private KerberosSettings() {}

  /** What every server's {@code core-site.xml}, {@code hdfs-site.xml} and {@code hbase-site.xml} hold. */
  public static Map<String, String> services(String realm, String servicesKeytab, String superuser) {
    String hbase = principal("hbase", realm);
    Map<String, String> c = new LinkedHashMap<>(clients(realm));
    for (String role : new String[] {"master", "regionserver"}) {
      c.put("hbase." + role + ".keytab.file", servicesKeytab);
    }
    for (String role : new String[] {"namenode", "datanode"}) {
      c.put("dfs." + role + ".kerberos.principal", hbase);
      c.put("dfs." + role + ".keytab.file", servicesKeytab);
    }
    c.put("dfs.web.authentication.kerberos.principal", principal("HTTP", realm));
    c.put("dfs.web.authentication.kerberos.keytab", servicesKeytab);
    c.put("dfs.block.access.token.enable", "true");
    // a real cluster's datanodes use privileged ports or SASL with HTTPS; a test's need neither
    c.put("ignore.secure.ports.for.testing", "true");
    c.put("hbase.security.authorization", "true");
    c.put("hbase.superuser", superuser);
    String accessController = AccessController.class.getName();
    c.put(CoprocessorHost.REGION_COPROCESSOR_CONF_KEY, accessController);
    c.put(CoprocessorHost.REGIONSERVER_COPROCESSOR_CONF_KEY, accessController);
    return c;
  }

  /** What a client needs to reach such a cluster: the authentication, the protection, the servers' principals. */
  public static Map<String, String> clients(String realm) {
    String hbase = principal("hbase", realm);
    Map<String, String> c = new LinkedHashMap<>();
    c.put("hadoop.security.authentication", "kerberos");
    c.put("hbase.security.authentication", "kerberos");
    c.put("hbase.rpc.protection", "privacy");
    c.put("hadoop.rpc.protection", "privacy");
    c.put("hbase.master.kerberos.principal", hbase);
    c.put("hbase.regionserver.kerberos.principal", hbase);
    return c;
  }

  /**
   * The system properties of ZooKeeper's server: SASL authentication, and ids without host and realm
   * ({@code sasl:hbase}), so that every region server is one id, as HBase asks of a production ZooKeeper.
   */
  public static Map<String, String> zookeeperServerProperties() {
    return Map.of("zookeeper.authProvider.1", "org.apache.zookeeper.server.auth.SASLAuthenticationProvider",
        "zookeeper.kerberos.removeHostFromPrincipal", "true",
        "zookeeper.kerberos.removeRealmFromPrincipal", "true");
  }

  /** {@code service/localhost@REALM}. */
  public static String principal(String service, String realm) {
    return service + "/" + KerberosRealm.HOST + "@" + realm;
  }
}
