package org.gstore.testing.security;

import java.io.File;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import javax.security.auth.login.AppConfigurationEntry;
import javax.security.auth.login.AppConfigurationEntry.LoginModuleControlFlag;
import org.apache.hadoop.minikdc.MiniKdc;

/**
 * A Kerberos realm on loopback for secure test clusters: Hadoop's MiniKdc (Apache Kerby), with the principals and
 * keytabs of the services and of test users. Service principals are {@code <service>/localhost@REALM}.
 *
 * <p>Kerberos settings are global to a JVM ({@code java.security.krb5.conf}, the default realm, the JAAS
 * configuration): run one realm per JVM, in a JVM of its own.
 */
public final class KerberosRealm implements AutoCloseable {
  /** The host part of service principals: the loopback name, which is what the servers resolve themselves to. */
  public static final String HOST = "localhost";

  private final MiniKdc kdc;
  private final File dir;

  private KerberosRealm(MiniKdc kdc, File dir) {
    this.kdc = kdc;
    this.dir = dir;
  }

  /** Starts a KDC that keeps its files and the keytabs it writes in {@code dir}. */
  public static KerberosRealm start(File dir) throws Exception {
    if (!dir.isDirectory() && !dir.mkdirs()) {
      throw new java.io.IOException("cannot create " + dir);
    }
    Properties conf = MiniKdc.createConf();
    conf.setProperty(MiniKdc.DEBUG, "false");
    MiniKdc kdc = new MiniKdc(conf, dir);
    kdc.start();
    // Hadoop caches the default realm when it first needs one: read it again now that krb5.conf names ours
    org.apache.hadoop.security.authentication.util.KerberosName.resetDefaultRealm();
    return new KerberosRealm(kdc, dir);
  }

  /** The realm's name, such as {@code EXAMPLE.COM}. */
  public String name() {
    return kdc.getRealm();
  }

  /** {@code service/localhost@REALM}. */
  public String servicePrincipal(String service) {
    return service + "/" + HOST + "@" + name();
  }

  /** {@code user@REALM}. */
  public String userPrincipal(String user) {
    return user + "@" + name();
  }

  /**
   * Creates {@code principals} (without their realm: {@code alice}, {@code hbase/localhost}) with random keys, and
   * returns the keytab {@code <name>.keytab} that holds exactly them.
   */
  public File keytab(String name, String... principals) throws Exception {
    File keytab = new File(dir, name + ".keytab");
    kdc.createPrincipal(keytab, principals);
    return keytab;
  }

  /** A JAAS entry that logs {@code principal} in from {@code keytab}, with no ticket cache and no prompt. */
  public static AppConfigurationEntry keytabLogin(String principal, File keytab) {
    Map<String, String> options = new HashMap<>();
    options.put("useKeyTab", "true");
    options.put("keyTab", keytab.getAbsolutePath());
    options.put("principal", principal);
    options.put("storeKey", "true");
    options.put("useTicketCache", "false");
    options.put("doNotPrompt", "true");
    options.put("refreshKrb5Config", "true");
    return new AppConfigurationEntry("com.sun.security.auth.module.Krb5LoginModule", LoginModuleControlFlag.REQUIRED,
        options);
  }

  @Override
  public void close() {
    kdc.stop();
  }
}
