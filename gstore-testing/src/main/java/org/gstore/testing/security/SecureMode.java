package org.gstore.testing.security;

import java.io.File;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.coprocessor.CoprocessorHost;
import org.apache.hadoop.hbase.security.User;
import org.apache.hadoop.hbase.security.access.AccessController;
import org.apache.hadoop.security.UserGroupInformation;

/**
 * What makes a mini cluster secure, as a production cluster with Kerberos is: a {@link KerberosRealm}; HDFS, HBase
 * and ZooKeeper authenticating every caller with Kerberos (ZooKeeper through SASL, its znodes under ACLs); HBase's
 * {@code AccessController}; HBase's RPC and HDFS's encrypted ({@code privacy}). Every service runs as
 * {@code hbase/localhost}; {@value #ADMIN} is a superuser; {@link #user} makes other users, each with a keytab.
 *
 * <p>Kerberos, JAAS and ZooKeeper's SASL settings are global to the JVM: one secure cluster per JVM, in a JVM that
 * runs no other cluster.
 */
public final class SecureMode implements AutoCloseable {
  /** A user HBase takes as a superuser ({@code hbase.superuser}). */
  public static final String ADMIN = "admin";
  private static final String ZOOKEEPER_SERVER_PRINCIPAL = "zookeeper.server.principal";

  private final KerberosRealm realm;
  private final JaasSections jaas;
  private final Configuration conf;
  private final Map<String, User> users = new ConcurrentHashMap<>();

  private SecureMode(KerberosRealm realm, JaasSections jaas, Configuration conf) {
    this.realm = realm;
    this.jaas = jaas;
    this.conf = conf;
  }

  /** Starts a realm in {@code dir} and makes {@code conf} (a cluster's, before it starts) a secure one's. */
  public static SecureMode prepare(Configuration conf, File dir) throws Exception {
    KerberosRealm realm = KerberosRealm.start(dir);
    String hbase = realm.servicePrincipal("hbase");
    String zookeeper = realm.servicePrincipal("zookeeper");
    File services = realm.keytab("services", "hbase/" + KerberosRealm.HOST, "HTTP/" + KerberosRealm.HOST);
    File zookeeperKeytab = realm.keytab("zookeeper", "zookeeper/" + KerberosRealm.HOST);

    KerberosSettings.zookeeperServerProperties().forEach(System::setProperty);
    System.setProperty(ZOOKEEPER_SERVER_PRINCIPAL, zookeeper);
    JaasSections jaas = JaasSections.install(Map.of(
        "Server", KerberosRealm.keytabLogin(zookeeper, zookeeperKeytab),
        "Client", KerberosRealm.keytabLogin(hbase, services)));

    String masterCoprocessors = conf.get(CoprocessorHost.MASTER_COPROCESSOR_CONF_KEY);
    KerberosSettings.services(realm.name(), services.getAbsolutePath(), ADMIN).forEach(conf::set);
    conf.set(CoprocessorHost.MASTER_COPROCESSOR_CONF_KEY, AccessController.class.getName()
        + (masterCoprocessors == null || masterCoprocessors.isBlank() ? "" : "," + masterCoprocessors));
    UserGroupInformation.setConfiguration(conf);
    return new SecureMode(realm, jaas, conf);
  }

  /** The realm. */
  public KerberosRealm realm() {
    return realm;
  }

  /** The JAAS sections this mode installed ({@code Server}, {@code Client}); a test may add its own. */
  public JaasSections jaas() {
    return jaas;
  }

  /**
   * A user of the realm, {@code name@REALM}, created with a keytab of its own and logged in from it (once per name):
   * open a connection as it with {@code ConnectionFactory.createConnection(conf, user)}.
   */
  public User user(String name) throws Exception {
    User known = users.get(name);
    if (known != null) {
      return known;
    }
    File keytab = realm.keytab("user-" + name, name);
    User user = User.create(UserGroupInformation.loginUserFromKeytabAndReturnUGI(realm.userPrincipal(name),
        keytab.getAbsolutePath()));
    users.put(name, user);
    return user;
  }

  /** The configuration the cluster was made secure with. */
  public Configuration configuration() {
    return conf;
  }

  @Override
  public void close() {
    try {
      jaas.uninstall();
      realm.close();
    } finally {
      KerberosSettings.zookeeperServerProperties().keySet().forEach(System::clearProperty);
      System.clearProperty(ZOOKEEPER_SERVER_PRINCIPAL);
      UserGroupInformation.reset();
    }
  }
}
