package org.gstore.coprocessor.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.client.Durability;
import org.gstore.common.protocol.ProtocolConfig;
import org.gstore.common.wire.DatagramCodec;
import org.gstore.common.wire.DatagramProtection;
import org.gstore.recovery.ShipmentLedger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every {@code gstore.*} setting of the region-server side, read once from the region server's configuration
 * ({@code hbase-site.xml}), with typed defaults. A bad value fails start-up with a message naming the key.
 * {@code docs/configuration.md} lists them.
 */
public record GStoreConfig(
    byte[] clusterSecret,
    byte[] acceptedSecret,
    String udpBindAddress,
    int udpPort,
    int udpPortLast,
    int datagramMaxBytes,
    long datagramFreshnessMillis,
    int wireVersion,
    DatagramProtection datagramProtection,
    ProtocolConfig protocol,
    long endpointWaitMillis,
    String walDir,
    int walStreams,
    long walRollBytes,
    boolean walHsync,
    long walFailureStopMillis,
    long snapshotRetentionMillis,
    long maxFutureMillis,
    long maxCommitBytes,
    int maxGroupIdChars,
    int maxRowBytes,
    Durability shipperDurability,
    long shipperDelayMillis,
    long quarantineRetryMillis,
    long recoveryRetainMillis,
    long recoveryHeartbeatMillis,
    long recoveryDeparturePollMillis,
    long recoveryZombieWindowMillis,
    long alertShippingLagMillis,
    long alertStalledMillis,
    boolean protocolLogged,
    long checkpointDelayMillis,
    boolean testFaultsEnabled,
    TestPlant testPlant) {
  private static final Logger LOG = LoggerFactory.getLogger(GStoreConfig.class);

  /**
   * The class name of G-Store's region coprocessor, as tables and {@code hbase.coprocessor.user.region.classes} name
   * it. A string, not a class literal: the layers below the coprocessor's entry point must not depend on it.
   */
  public static final String REGION_COPROCESSOR = "org.gstore.coprocessor.GStoreRegionCoprocessor";
  public static final String CLUSTER_SECRET = "gstore.cluster.secret";
  public static final String CLUSTER_SECRET_FILE = "gstore.cluster.secret.file";
  /**
   * A second secret whose datagrams and owner tokens are accepted too, though nothing is signed with it: set while
   * the cluster secret is rotated (docs/operations.md, "Rotating the cluster secret"). Read like
   * {@link #CLUSTER_SECRET}, from {@link #CLUSTER_SECRET_ACCEPTED_FILE} or a credential provider.
   */
  public static final String CLUSTER_SECRET_ACCEPTED = "gstore.cluster.secret.accepted";
  public static final String CLUSTER_SECRET_ACCEPTED_FILE = "gstore.cluster.secret.accepted.file";
  /**
   * Allows {@link #CLUSTER_SECRET} as clear text in the configuration. Off by default: {@code hbase-site.xml} is
   * usually handed to clients, and any client holding the secret can mint owner tokens and forge datagrams.
   */
  public static final String CLUSTER_SECRET_ALLOW_CLEAR_TEXT = "gstore.cluster.secret.allow.cleartext";
  public static final String UDP_BIND_ADDRESS = "gstore.udp.bind.address";
  public static final String UDP_PORT = "gstore.udp.port";
  public static final String DATAGRAM_MAX_BYTES = "gstore.udp.datagram.max.bytes";
  public static final String DATAGRAM_FRESHNESS_MS = "gstore.udp.freshness.ms";
  /**
   * The wire version this server sends: during a rolling upgrade, the previous release's (the release takes both).
   * Defaults to this release's ({@link DatagramCodec#VERSION}).
   */
  public static final String WIRE_VERSION = "gstore.udp.wire.version";
  /**
   * How datagrams are protected: {@code privacy} (encrypted, so row keys and group names stay off the network),
   * {@code integrity} (authenticated, in clear) or {@code auto} (the default: {@code privacy} when HBase's own RPC
   * is encrypted, by {@code hbase.rpc.protection=privacy} or TLS).
   */
  public static final String UDP_PROTECTION = "gstore.udp.protection";
  public static final String RETRY_INITIAL_MS = "gstore.protocol.retry.initial.ms";
  public static final String RETRY_MAX_MS = "gstore.protocol.retry.max.ms";
  public static final String GROUP_MAX_SIZE = "gstore.group.max.size";
  public static final String TOMBSTONE_RETENTION_MS = "gstore.group.tombstone.retention.ms";
  public static final String ENDPOINT_WAIT_MS = "gstore.endpoint.wait.ms";
  public static final String WAL_DIR = "gstore.wal.dir";
  public static final String WAL_STREAMS = "gstore.wal.streams";
  public static final String WAL_ROLL_BYTES = "gstore.wal.roll.bytes";
  public static final String WAL_HSYNC = "gstore.wal.hsync";
  /** How long a WAL stream may keep failing (not fenced) before G-Store stops its region server. */
  public static final String WAL_FAILURE_STOP_MS = "gstore.wal.failure.stop.ms";
  public static final String SNAPSHOT_RETENTION_MS = "gstore.txn.snapshot.retention.ms";
  public static final String TXN_MAX_FUTURE_MS = "gstore.txn.max.future.ms";
  /**
   * How long {@code gstore:outcomes} keeps the outcome of a commit (the table's TTL, set when G-Store creates it):
   * a commit retried within it gets its first outcome. Must exceed the clients' commit deadline.
   */
  public static final String TXN_OUTCOME_RETAIN_MS = "gstore.txn.outcome.retain.ms";
  /** The largest commit (its writes, serialized) a transaction may make; larger ones are refused before logging. */
  public static final String TXN_MAX_COMMIT_BYTES = "gstore.txn.max.commit.bytes";
  /** Room a WAL record needs besides its writes (group name, leader row, transaction id, field tags). */
  static final int WAL_RECORD_OVERHEAD_BYTES = 64 << 10;
  public static final String GROUP_MAX_ID_CHARS = "gstore.group.max.id.chars";
  public static final String GROUP_MAX_ROW_BYTES = "gstore.group.max.row.bytes";
  public static final String SHIPPER_DURABILITY = "gstore.shipper.durability";
  /** Test-only: holds every commit this long before shipping, so a test can crash a server with commits unshipped. */
  public static final String SHIPPER_DELAY_MS = "gstore.shipper.delay.ms";
  /** How often commits HBase refused for good (quarantined) are shipped again. */
  public static final String SHIPPER_QUARANTINE_RETRY_MS = "gstore.shipper.quarantine.retry.ms";
  /**
   * Test clusters only: the region server takes test faults (its datagrams to some peers dropped, its G-Store clock
   * moved, for a while) from a chaos run. Off by default; a server with it off refuses them, saying so.
   */
  public static final String TEST_FAULTS_ENABLED = "gstore.test.faults.enabled";
  /**
   * Test clusters only: one defect planted on purpose ({@link TestPlant}: {@code skip-validation},
   * {@code skip-drain}, {@code skip-fence}), to show that a chaos run catches it. Ignored, with a warning, unless
   * {@link #TEST_FAULTS_ENABLED} is on.
   */
  public static final String TEST_PLANT = "gstore.test.plant";
  /**
   * Where protocol state becomes durable first: {@code table} (each step's records written to the state tables
   * before its messages leave) or {@code wal} (logged in the shared WAL, checkpointed to the tables in the
   * background). Every server must run a release that reads protocol records before any server logs them.
   */
  public static final String PROTOCOL_LOG = "gstore.protocol.log";
  /**
   * Test-only: how long a logged protocol record waits before its checkpoint (a closing region or a stopping
   * server still flushes at once), so a test can crash a server between a record's hflush and its checkpoint.
   */
  public static final String PROTOCOL_CHECKPOINT_DELAY_MS = "gstore.protocol.checkpoint.delay.ms";
  /** How long a dead server's replayed WAL is kept, for an operator to read ({@code gstore wal}). */
  public static final String RECOVERY_RETAIN_MS = "gstore.recovery.retain.ms";
  /** How often each server claims T_P and each leader drops what every server persisted (see docs/recovery.md). */
  public static final String RECOVERY_HEARTBEAT_MS = "gstore.recovery.heartbeat.ms";
  /**
   * How often each server reads ZooKeeper's live servers to fence the G-Store WAL of one that left as soon as it
   * leaves, beside HBase's own WAL split (a read of one znode's children; HDFS is touched only when a server left).
   */
  public static final String RECOVERY_DEPARTURE_POLL_MS = "gstore.recovery.departure.poll.ms";
  /**
   * How long a server declared dead is suspected of still acknowledging shipped writes it cannot persist (a paused
   * process that has not yet learned of its death): leaders hold what it had not claimed that long, then ship it
   * again. Must exceed one RPC's timeout ({@code hbase.rpc.timeout}); by default twice that.
   */
  public static final String RECOVERY_ZOMBIE_WINDOW_MS = "gstore.recovery.zombie.window.ms";
  /** How long a commit may wait to be shipped before G-Store alerts (see {@code ThresholdAlerts}). */
  public static final String ALERT_SHIPPING_LAG_MS = "gstore.alert.shipping.lag.ms";
  /** How long T_P may stay still with commits unpersisted, or heartbeats keep failing, before G-Store alerts. */
  public static final String ALERT_STALLED_MS = "gstore.alert.stalled.ms";
  /**
   * How long major compactions of G-Store regions keep delete markers (HBase's time to purge deletes, raised to
   * this if lower): a commit shipped again after a newer commit deleted its cells must stay hidden. Longer than any
   * commit stays unpersisted in a shipper.
   */
  public static final String DELETES_RETAIN_MS = "gstore.recovery.deletes.retain.ms";
  /** Bytes a datagram needs besides a message's group name and two rows (header, HMAC, field tags, ids). */
  static final int DATAGRAM_OVERHEAD_BYTES = 1_024;

  /** {@link #DELETES_RETAIN_MS}: 24 hours by default. */
  public static long deletesRetainMillis(Configuration conf) {
    return longIn(conf, DELETES_RETAIN_MS, 24L * 3_600_000, 0, 365L * 24 * 3_600_000);
  }

  /** {@link #TXN_OUTCOME_RETAIN_MS}: how long {@code gstore:outcomes} keeps an outcome (1 s to 365 days). */
  public static long outcomeRetainMillis(Configuration conf) {
    return longIn(conf, TXN_OUTCOME_RETAIN_MS, org.gstore.recovery.hbase.OutcomeTable.DEFAULT_RETAIN_MILLIS, 1_000,
        365L * 24 * 3_600_000);
  }

  /** Where every region server keeps its G-Store WAL, in a directory named after the server. */
  public static org.apache.hadoop.fs.Path walRoot(Configuration conf) throws java.io.IOException {
    String dir = conf.getTrimmed(WAL_DIR, "");
    return dir.isEmpty()
        ? new org.apache.hadoop.fs.Path(org.apache.hadoop.hbase.util.CommonFSUtils.getRootDir(conf), "gstore-wal")
        : new org.apache.hadoop.fs.Path(dir);
  }

  /** Reads and validates; {@link IllegalArgumentException} names the offending key. */
  public static GStoreConfig from(Configuration conf) {
    byte[] secret = secret(conf, CLUSTER_SECRET, CLUSTER_SECRET_FILE);
    if (secret == null) {
      throw new IllegalArgumentException(CLUSTER_SECRET_FILE + " (or " + CLUSTER_SECRET + ") must hold a shared"
          + " secret of at least 16 bytes, the same on every region server; it authenticates G-Store datagrams and"
          + " owner tokens");
    }
    byte[] accepted = secret(conf, CLUSTER_SECRET_ACCEPTED, CLUSTER_SECRET_ACCEPTED_FILE);
    if (accepted != null && java.util.Arrays.equals(accepted, secret)) {
      throw new IllegalArgumentException(CLUSTER_SECRET_ACCEPTED_FILE + " (or " + CLUSTER_SECRET_ACCEPTED + ") holds"
          + " the cluster secret itself: while the secret is rotated it holds the other one (the new secret in phase"
          + " 1, the old one in phase 2; docs/operations.md, \"Rotating the cluster secret\")");
    }
    int maxBytes = intIn(conf, DATAGRAM_MAX_BYTES, 60_000, 1_024, 65_000);
    ProtocolConfig d = ProtocolConfig.DEFAULTS;
    long retryInitial = longIn(conf, RETRY_INITIAL_MS, d.retryInitialMillis(), 1, 60_000);
    long retryMax = longIn(conf, RETRY_MAX_MS, d.retryMaxMillis(), retryInitial, 600_000);
    ProtocolConfig protocol = new ProtocolConfig(retryInitial, retryMax,
        intIn(conf, GROUP_MAX_SIZE, d.maxGroupSize(), 1, 100_000), d.uidBlock(),
        longIn(conf, TOMBSTONE_RETENTION_MS, d.endedRetentionMillis(), 0, Long.MAX_VALUE));
    int maxIdChars = intIn(conf, GROUP_MAX_ID_CHARS, 256, 1, 4_096);
    int maxRowBytes = intIn(conf, GROUP_MAX_ROW_BYTES, 4_096, 1, Short.MAX_VALUE - 1_024);
    // the largest single message (a group's name, its leader row and a member row) must fit one datagram
    long largestMessage = 4L * maxIdChars + 2L * maxRowBytes + DATAGRAM_OVERHEAD_BYTES;
    if (largestMessage > maxBytes) {
      throw new IllegalArgumentException(DATAGRAM_MAX_BYTES + " (" + maxBytes + ") is too small for the largest"
          + " protocol message that " + GROUP_MAX_ID_CHARS + " and " + GROUP_MAX_ROW_BYTES + " allow ("
          + largestMessage + " bytes); raise it or lower them");
    }
    int[] udpPorts = portRange(conf, UDP_PORT);
    int wireVersion = intIn(conf, WIRE_VERSION, DatagramCodec.VERSION, DatagramCodec.OLDEST_VERSION,
        DatagramCodec.VERSION);
    outcomeRetainMillis(conf); // read where gstore:outcomes is created; checked here, at start
    return new GStoreConfig(
        secret,
        accepted,
        conf.getTrimmed(UDP_BIND_ADDRESS, ""),
        udpPorts[0],
        udpPorts[1],
        maxBytes,
        longIn(conf, DATAGRAM_FRESHNESS_MS, DatagramCodec.DEFAULT_FRESHNESS_MILLIS, 0, 3_600_000),
        wireVersion,
        UdpProtection.resolve(conf, wireVersion),
        protocol,
        longIn(conf, ENDPOINT_WAIT_MS, 20_000, 10, 600_000),
        conf.getTrimmed(WAL_DIR, ""),
        intIn(conf, WAL_STREAMS, 1, 1, 64),
        longIn(conf, WAL_ROLL_BYTES, 64L << 20, 1 << 16, 16L << 30),
        bool(conf, WAL_HSYNC),
        longIn(conf, WAL_FAILURE_STOP_MS, 60_000, 1_000, 3_600_000),
        longIn(conf, SNAPSHOT_RETENTION_MS, 60_000, 0, 3_600_000),
        longIn(conf, TXN_MAX_FUTURE_MS, 60_000, 0, 3_600_000),
        // a commit must fit one WAL frame, which the reader caps: a larger one could be logged but never replayed
        longIn(conf, TXN_MAX_COMMIT_BYTES, 32L << 20, 1_024,
            org.gstore.common.wal.WalFormat.MAX_PAYLOAD - WAL_RECORD_OVERHEAD_BYTES),
        maxIdChars,
        maxRowBytes,
        durability(conf),
        longIn(conf, SHIPPER_DELAY_MS, 0, 0, 600_000),
        longIn(conf, SHIPPER_QUARANTINE_RETRY_MS, ShipmentLedger.DEFAULT_QUARANTINE_RETRY_MILLIS, 1_000, 3_600_000),
        longIn(conf, RECOVERY_RETAIN_MS, 600_000, 1_000, 7L * 24 * 3_600_000),
        longIn(conf, RECOVERY_HEARTBEAT_MS, 5_000, 10, 600_000),
        longIn(conf, RECOVERY_DEPARTURE_POLL_MS, 500, 50, 60_000),
        longIn(conf, RECOVERY_ZOMBIE_WINDOW_MS,
            2L * conf.getLong(HConstants.HBASE_RPC_TIMEOUT_KEY, HConstants.DEFAULT_HBASE_RPC_TIMEOUT), 1_000,
            3_600_000),
        longIn(conf, ALERT_SHIPPING_LAG_MS, 60_000, 1_000, 24L * 3_600_000),
        longIn(conf, ALERT_STALLED_MS, 300_000, 1_000, 24L * 3_600_000),
        protocolLogged(conf),
        longIn(conf, PROTOCOL_CHECKPOINT_DELAY_MS, 0, 0, 24L * 3_600_000),
        bool(conf, TEST_FAULTS_ENABLED),
        testPlant(conf));
  }

  /** The planted defect, honoured on test clusters only. */
  private static TestPlant testPlant(Configuration conf) {
    TestPlant plant = TestPlant.parse(conf.get(TEST_PLANT));
    if (plant != TestPlant.NONE && !bool(conf, TEST_FAULTS_ENABLED)) {
      LOG.warn("{}={} is ignored: this is not a test cluster ({}"
          + " is off)", TEST_PLANT, plant.configName(), TEST_FAULTS_ENABLED);
      return TestPlant.NONE;
    }
    if (plant != TestPlant.NONE) {
      LOG.error("G-Store TEST CLUSTER WITH A PLANTED DEFECT: {}={};"
          + " it breaks G-Store's guarantees on purpose", TEST_PLANT, plant.configName());
    }
    return plant;
  }

  private static boolean protocolLogged(Configuration conf) {
    String raw = conf.getTrimmed(PROTOCOL_LOG, "table");
    if (!raw.equals("table") && !raw.equals("wal")) {
      throw new IllegalArgumentException(PROTOCOL_LOG + " must be 'table' or 'wal', not '" + raw + "'");
    }
    return raw.equals("wal");
  }

  /**
   * A secret, from a file only the HBase user can read ({@code fileKey}), or from {@code key} through Hadoop's
   * credential providers (a keystore named by {@code hadoop.security.credential.provider.path}); null if neither is
   * set. A clear-text value in the configuration is refused unless {@link #CLUSTER_SECRET_ALLOW_CLEAR_TEXT} allows
   * it, and one shorter than 16 bytes always.
   */
  static byte[] secret(Configuration conf, String key, String fileKey) {
    String file = conf.getTrimmed(fileKey, "");
    String secret;
    if (!file.isEmpty()) {
      if (conf.get(key) != null) {
        throw new IllegalArgumentException("set " + fileKey + " or " + key + ", not both");
      }
      secret = readSecretFile(fileKey, Paths.get(file));
    } else {
      char[] password;
      try {
        password = conf.getPasswordFromCredentialProviders(key);
      } catch (IOException e) {
        throw new IllegalArgumentException(key + " could not be read from the credential provider: "
            + e.getMessage(), e);
      }
      if (password == null && conf.get(key) != null) {
        if (!bool(conf, CLUSTER_SECRET_ALLOW_CLEAR_TEXT)) {
          throw new IllegalArgumentException(key + " is set in clear text in the configuration, which is"
              + " usually handed to clients: any client holding it could mint owner tokens. Put it in a file only"
              + " the HBase user can read (" + fileKey + ") or a credential provider, or set "
              + CLUSTER_SECRET_ALLOW_CLEAR_TEXT + "=true to accept the risk");
        }
        password = conf.get(key).toCharArray();
      }
      if (password == null) {
        return null;
      }
      secret = new String(password);
    }
    byte[] bytes = secret.getBytes(StandardCharsets.UTF_8);
    if (bytes.length < 16) {
      throw new IllegalArgumentException(fileKey + " (or " + key + ") must hold a secret of at least 16 bytes");
    }
    return bytes;
  }

  private static String readSecretFile(String fileKey, Path path) {
    try {
      Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(path);
      if (permissions.stream().anyMatch(p -> p.name().startsWith("GROUP_") || p.name().startsWith("OTHERS_"))) {
        // the file's group may hold users that are not HBase
        throw new IllegalArgumentException(fileKey + " " + path + " is open to users other than its owner ("
            + PosixFilePermissions.toString(permissions) + "); make it readable by the HBase user only (chmod 600)");
      }
      return Files.readString(path, StandardCharsets.UTF_8).trim();
    } catch (UnsupportedOperationException e) {
      throw new IllegalArgumentException(fileKey + " " + path + " is on a file system without POSIX"
          + " permissions, so G-Store cannot check who may read it", e);
    } catch (IOException e) {
      throw new IllegalArgumentException(fileKey + " " + path + " cannot be read: " + e, e);
    }
  }

  /**
   * A port ({@code 16050}), or a range ({@code 16050-16059}) of which a server takes the first free one, so that
   * several region servers on one host can share one configuration. 0 (the default) lets the system choose.
   */
  private static int[] portRange(Configuration conf, String key) {
    String raw = conf.getTrimmed(key, "0");
    String[] ends = raw.split("-", -1);
    if (ends.length > 2) {
      throw new IllegalArgumentException(key + " must be a port or a range like 16050-16059, not '" + raw + "'");
    }
    Configuration single = new Configuration(false);
    single.set(key, ends[0]);
    int first = intIn(single, key, 0, 0, 65_535);
    if (ends.length == 1) {
      return new int[] {first, first};
    }
    single.set(key, ends[1]);
    int last = intIn(single, key, 0, 1, 65_535);
    if (first == 0 || last < first) {
      throw new IllegalArgumentException(key + " must be a range of ports from low to high, not '" + raw + "'");
    }
    return new int[] {first, last};
  }

  private static int intIn(Configuration conf, String key, int dflt, int min, int max) {
    return (int) longIn(conf, key, dflt, min, max);
  }

  private static long longIn(Configuration conf, String key, long dflt, long min, long max) {
    String raw = conf.getTrimmed(key);
    if (raw == null || raw.isEmpty()) {
      return dflt;
    }
    long value;
    try {
      value = Long.parseLong(raw);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(key + " must be a whole number, not '" + raw + "'");
    }
    if (value < min || value > max) {
      throw new IllegalArgumentException(key + " must be between " + min + " and " + max + ", not " + value);
    }
    return value;
  }

  private static boolean bool(Configuration conf, String key) {
    String raw = conf.getTrimmed(key, "false");
    if (!raw.equalsIgnoreCase("true") && !raw.equalsIgnoreCase("false")) {
      throw new IllegalArgumentException(key + " must be true or false, not '" + raw + "'");
    }
    return Boolean.parseBoolean(raw);
  }

  private static Durability durability(Configuration conf) {
    String raw = conf.getTrimmed(SHIPPER_DURABILITY, "ASYNC_WAL");
    try {
      Durability d = Durability.valueOf(raw.toUpperCase(java.util.Locale.ROOT));
      // SKIP_WAL would leave shipped commits only in memstores: no WAL sync persists them, so the recovery
      // could never tell when the G-Store WAL may let them go
      if (d == Durability.USE_DEFAULT || d == Durability.SKIP_WAL) {
        throw new IllegalArgumentException();
      }
      return d;
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(SHIPPER_DURABILITY + " must be one of ASYNC_WAL, SYNC_WAL, FSYNC_WAL, not '"
          + raw + "'");
    }
  }
}
