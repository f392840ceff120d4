package org.gstore.coprocessor.config;

import static org.gstore.coprocessor.config.GStoreConfig.UDP_PROTECTION;
import static org.gstore.coprocessor.config.GStoreConfig.WIRE_VERSION;

import java.util.Arrays;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;
import org.gstore.common.wire.DatagramCodec;
import org.gstore.common.wire.DatagramProtection;

/** How this server protects its datagrams: {@link GStoreConfig#UDP_PROTECTION} read and checked. */
final class UdpProtection {
  private UdpProtection() {}

  /**
   * {@link GStoreConfig#UDP_PROTECTION}, {@code auto} resolved against HBase's RPC and the wire version: while a
   * rolling upgrade from a release without encrypted datagrams runs, {@code auto} sends them in clear.
   */
  static DatagramProtection resolve(Configuration conf, int wireVersion) {
    String raw = conf.getTrimmed(UDP_PROTECTION, "auto").toLowerCase(Locale.ROOT);
    boolean encryptable = wireVersion >= DatagramCodec.PRIVATE_SINCE;
    return switch (raw) {
      case "privacy" -> {
        if (!encryptable) {
          throw new IllegalArgumentException(UDP_PROTECTION + "=privacy needs wire version "
              + DatagramCodec.PRIVATE_SINCE + " or newer, but " + WIRE_VERSION + " is " + wireVersion
              + " (servers of a release that cannot read encrypted datagrams still run): leave it at auto, or"
              + " finish the upgrade first");
        }
        yield DatagramProtection.PRIVACY;
      }
      case "integrity" -> DatagramProtection.INTEGRITY;
      case "auto" -> encryptable && rpcEncrypted(conf) ? DatagramProtection.PRIVACY : DatagramProtection.INTEGRITY;
      default -> throw new IllegalArgumentException(UDP_PROTECTION + " must be auto, privacy or integrity, not '"
          + raw + "'");
    };
  }

  /**
   * Whether HBase encrypts its RPC: SASL's {@code privacy} (or its other name, {@code auth-conf}) among the
   * qualities {@code hbase.rpc.protection} lists, or TLS for HBase's RPC server.
   */
  static boolean rpcEncrypted(Configuration conf) {
    return Arrays.stream(conf.getTrimmedStrings("hbase.rpc.protection"))
        .anyMatch(q -> q.equalsIgnoreCase("privacy") || q.equalsIgnoreCase("auth-conf"))
        || conf.getBoolean("hbase.server.netty.tls.enabled", false);
  }
}
