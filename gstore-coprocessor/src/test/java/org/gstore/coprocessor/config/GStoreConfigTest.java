package org.gstore.coprocessor.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.apache.hadoop.conf.Configuration;
import org.gstore.common.wire.DatagramProtection;
import org.gstore.coprocessor.server.TableGuard;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(10)
class GStoreConfigTest {
  private static Configuration valid() {
    Configuration conf = new Configuration(false);
    conf.set(GStoreConfig.CLUSTER_SECRET, "sixteen-bytes-or-more");
    conf.set(GStoreConfig.CLUSTER_SECRET_ALLOW_CLEAR_TEXT, "true");
    return conf;
  }

  @Test
  void aClearTextSecretInTheConfigurationIsRefusedUnlessExplicitlyAllowed() {
    Configuration conf = new Configuration(false);
    conf.set(GStoreConfig.CLUSTER_SECRET, "sixteen-bytes-or-more");
    assertThatThrownBy(() -> GStoreConfig.from(conf)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(GStoreConfig.CLUSTER_SECRET_FILE)
        .hasMessageContaining(GStoreConfig.CLUSTER_SECRET_ALLOW_CLEAR_TEXT);
    conf.set(GStoreConfig.CLUSTER_SECRET_ALLOW_CLEAR_TEXT, "true");
    assertThat(new String(GStoreConfig.from(conf).clusterSecret(), StandardCharsets.UTF_8))
        .isEqualTo("sixteen-bytes-or-more");
  }

  @Test
  void defaultsApplyWhenOnlyTheSecretIsSet() {
    GStoreConfig c = GStoreConfig.from(valid());
    assertThat(c.udpPort()).isZero();
    assertThat(c.protocol().retryInitialMillis()).isEqualTo(20);
    assertThat(c.protocol().maxGroupSize()).isEqualTo(1_000);
    assertThat(c.protocol().endedRetentionMillis()).isEqualTo(600_000);
  }

  @Test
  void datagramsArePrivateWhenHBaseRpcIsOrWhenAsked() {
    Configuration conf = valid();
    assertThat(GStoreConfig.from(conf).datagramProtection()).isEqualTo(DatagramProtection.INTEGRITY);
    conf.set("hbase.rpc.protection", "authentication,privacy");
    assertThat(GStoreConfig.from(conf).datagramProtection()).as("auto follows any privacy HBase's RPC takes")
        .isEqualTo(DatagramProtection.PRIVACY);
    conf.set("hbase.rpc.protection", "auth-conf");
    assertThat(GStoreConfig.from(conf).datagramProtection()).as("SASL's other name for privacy")
        .isEqualTo(DatagramProtection.PRIVACY);
    conf.set("hbase.rpc.protection", "authentication");
    conf.setBoolean("hbase.server.netty.tls.enabled", true);
    assertThat(GStoreConfig.from(conf).datagramProtection()).as("RPC over TLS").isEqualTo(DatagramProtection.PRIVACY);
    conf.unset("hbase.server.netty.tls.enabled");
    conf.set(GStoreConfig.UDP_PROTECTION, "integrity");
    assertThat(GStoreConfig.from(conf).datagramProtection()).isEqualTo(DatagramProtection.INTEGRITY);
    conf.unset("hbase.rpc.protection");
    conf.set(GStoreConfig.UDP_PROTECTION, " Privacy ");
    assertThat(GStoreConfig.from(conf).datagramProtection()).isEqualTo(DatagramProtection.PRIVACY);
    conf.set(GStoreConfig.WIRE_VERSION, "1"); // a rolling upgrade from a release that cannot read them
    assertThatThrownBy(() -> GStoreConfig.from(conf)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(GStoreConfig.WIRE_VERSION);
    conf.set(GStoreConfig.UDP_PROTECTION, "auto");
    conf.set("hbase.rpc.protection", "privacy");
    assertThat(GStoreConfig.from(conf).datagramProtection()).as("auto stays readable by the older servers")
        .isEqualTo(DatagramProtection.INTEGRITY);
    conf.unset(GStoreConfig.WIRE_VERSION);
    conf.set(GStoreConfig.UDP_PROTECTION, "encrypted");
    assertThatThrownBy(() -> GStoreConfig.from(conf)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(GStoreConfig.UDP_PROTECTION).hasMessageContaining("encrypted");
  }

  @Test
  void udpPortTakesOnePortOrARange() {
    Configuration conf = valid();
    conf.set(GStoreConfig.UDP_PORT, "16050");
    assertThat(GStoreConfig.from(conf).udpPort()).isEqualTo(16050);
    assertThat(GStoreConfig.from(conf).udpPortLast()).isEqualTo(16050);
    conf.set(GStoreConfig.UDP_PORT, " 16050-16059 ");
    assertThat(GStoreConfig.from(conf).udpPort()).isEqualTo(16050);
    assertThat(GStoreConfig.from(conf).udpPortLast()).isEqualTo(16059);
    for (String bad : new String[] {"16059-16050", "0-10", "16050-", "1-2-3", "port", "70000"}) {
      conf.set(GStoreConfig.UDP_PORT, bad);
      assertThatThrownBy(() -> GStoreConfig.from(conf)).as(bad)
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(GStoreConfig.UDP_PORT);
    }
  }

  @Test
  void missingOrShortSecretFailsNamingTheKey() {
    assertThatThrownBy(() -> GStoreConfig.from(new Configuration(false)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(GStoreConfig.CLUSTER_SECRET);
    Configuration conf = valid();
    conf.set(GStoreConfig.CLUSTER_SECRET, "short");
    assertThatThrownBy(() -> GStoreConfig.from(conf)).hasMessageContaining("at least 16 bytes");
  }

  @Test
  void theSecretFileMustBeClosedToOtherUsers(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("gstore.secret");
    Files.writeString(file, "  a secret read from a file  \n");
    Configuration conf = new Configuration(false);
    conf.set(GStoreConfig.CLUSTER_SECRET_FILE, file.toString());
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
    assertThatThrownBy(() -> GStoreConfig.from(conf)).hasMessageContaining(GStoreConfig.CLUSTER_SECRET_FILE)
        .hasMessageContaining("chmod 600");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r-----")); // its group may read it
    assertThatThrownBy(() -> GStoreConfig.from(conf)).hasMessageContaining("rw-r-----")
        .hasMessageContaining("chmod 600");
    for (String ownerOnly : new String[] {"r--------", "rwx------", "r-x------"}) {
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(ownerOnly));
      assertThat(new String(GStoreConfig.from(conf).clusterSecret(), StandardCharsets.UTF_8))
          .as("%s: only its owner has access", ownerOnly).isEqualTo("a secret read from a file");
    }
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    assertThat(new String(GStoreConfig.from(conf).clusterSecret(), StandardCharsets.UTF_8))
        .isEqualTo("a secret read from a file");
    conf.set(GStoreConfig.CLUSTER_SECRET, "sixteen-bytes-or-more");
    assertThatThrownBy(() -> GStoreConfig.from(conf)).hasMessageContaining("not both");
  }

  @Test
  void anAcceptedSecretIsOptionalAndReadLikeTheClusterSecret(@TempDir Path dir) throws Exception {
    assertThat(GStoreConfig.from(valid()).acceptedSecret()).isNull();
    Path file = dir.resolve("accepted.secret");
    Files.writeString(file, "the next cluster secret\n");
    Configuration conf = valid();
    conf.set(GStoreConfig.CLUSTER_SECRET_ACCEPTED_FILE, file.toString());
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-rw-rw-"));
    assertThatThrownBy(() -> GStoreConfig.from(conf)).hasMessageContaining(GStoreConfig.CLUSTER_SECRET_ACCEPTED_FILE)
        .hasMessageContaining("chmod 600");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    assertThat(new String(GStoreConfig.from(conf).acceptedSecret(), StandardCharsets.UTF_8))
        .isEqualTo("the next cluster secret");

    Configuration clearText = new Configuration(false);
    clearText.set(GStoreConfig.CLUSTER_SECRET_FILE, file.toString());
    clearText.set(GStoreConfig.CLUSTER_SECRET_ACCEPTED, "sixteen-bytes-or-more");
    assertThatThrownBy(() -> GStoreConfig.from(clearText)).hasMessageContaining(GStoreConfig.CLUSTER_SECRET_ACCEPTED)
        .hasMessageContaining(GStoreConfig.CLUSTER_SECRET_ALLOW_CLEAR_TEXT);
    Configuration same = valid();
    same.set(GStoreConfig.CLUSTER_SECRET_ACCEPTED, "sixteen-bytes-or-more");
    assertThatThrownBy(() -> GStoreConfig.from(same)).hasMessageContaining("holds the cluster secret itself");
    Configuration tooShort = valid();
    tooShort.set(GStoreConfig.CLUSTER_SECRET_ACCEPTED, "short");
    assertThatThrownBy(() -> GStoreConfig.from(tooShort)).hasMessageContaining(GStoreConfig.CLUSTER_SECRET_ACCEPTED)
        .hasMessageContaining("at least 16 bytes");
  }

  @Test
  void limitsThatAllowAMessageLargerThanADatagramFailStartUp() {
    Configuration conf = valid();
    conf.set(GStoreConfig.DATAGRAM_MAX_BYTES, "4000");
    assertThatThrownBy(() -> GStoreConfig.from(conf)).hasMessageContaining(GStoreConfig.DATAGRAM_MAX_BYTES)
        .hasMessageContaining(GStoreConfig.GROUP_MAX_ROW_BYTES);
    conf.set(GStoreConfig.GROUP_MAX_ROW_BYTES, "512");
    assertThat(GStoreConfig.from(conf).maxRowBytes()).isEqualTo(512);
  }

  @Test
  void badNumbersFailNamingTheKeyAndTheValue() {
    Configuration conf = valid();
    conf.set(GStoreConfig.GROUP_MAX_SIZE, "lots");
    assertThatThrownBy(() -> GStoreConfig.from(conf)).hasMessageContaining(GStoreConfig.GROUP_MAX_SIZE)
        .hasMessageContaining("'lots'");
    Configuration range = valid();
    range.set(GStoreConfig.UDP_PORT, "70000");
    assertThatThrownBy(() -> GStoreConfig.from(range)).hasMessageContaining(GStoreConfig.UDP_PORT)
        .hasMessageContaining("70000");
    Configuration backwards = valid();
    backwards.set(GStoreConfig.RETRY_INITIAL_MS, "500");
    backwards.set(GStoreConfig.RETRY_MAX_MS, "100");
    assertThatThrownBy(() -> GStoreConfig.from(backwards)).hasMessageContaining(GStoreConfig.RETRY_MAX_MS);
  }

  @Test
  void clusterWideInstallationIsRecognisedInEitherKeyWithPriorityAndPath() {
    Configuration conf = new Configuration(false);
    conf.set("hbase.coprocessor.user.region.classes",
        "com.example.Other, " + GStoreConfig.REGION_COPROCESSOR + "|1073741823");
    assertThat(TableGuard.lists(conf, "hbase.coprocessor.user.region.classes")).isTrue();
    assertThat(TableGuard.lists(conf, "hbase.coprocessor.region.classes")).isFalse();
  }

  @Test
  void theCoprocessorsNameIsTheClassOperatorsInstall() {
    assertThat(GStoreConfig.REGION_COPROCESSOR)
        .isEqualTo(org.gstore.coprocessor.GStoreRegionCoprocessor.class.getName());
  }

  @Test
  void anOutcomeRetentionBelowASecondIsRefusedAtStart() {
    Configuration conf = valid();
    conf.setLong(GStoreConfig.TXN_OUTCOME_RETAIN_MS, 999);
    assertThatThrownBy(() -> GStoreConfig.from(conf)).hasMessageContaining(GStoreConfig.TXN_OUTCOME_RETAIN_MS);
    conf.setLong(GStoreConfig.TXN_OUTCOME_RETAIN_MS, 1_000);
    assertThat(GStoreConfig.outcomeRetainMillis(conf)).isEqualTo(1_000);
  }

  @Test
  void aPlantedDefectIsHonouredOnTestClustersOnly() {
    Configuration conf = valid();
    assertThat(GStoreConfig.from(conf).testPlant()).isEqualTo(TestPlant.NONE);
    conf.set(GStoreConfig.TEST_PLANT, "skip-validation");
    assertThat(GStoreConfig.from(conf).testPlant()).as("not a test cluster: ignored").isEqualTo(TestPlant.NONE);
    conf.setBoolean(GStoreConfig.TEST_FAULTS_ENABLED, true);
    assertThat(GStoreConfig.from(conf).testPlant()).isEqualTo(TestPlant.SKIP_VALIDATION);
    conf.set(GStoreConfig.TEST_PLANT, "skip-drain");
    assertThat(GStoreConfig.from(conf).testPlant()).isEqualTo(TestPlant.SKIP_DRAIN);
    conf.set(GStoreConfig.TEST_PLANT, " skip-fence ");
    assertThat(GStoreConfig.from(conf).testPlant()).isEqualTo(TestPlant.SKIP_FENCE);
    conf.set(GStoreConfig.TEST_PLANT, "none");
    assertThat(GStoreConfig.from(conf).testPlant()).isEqualTo(TestPlant.NONE);
    conf.set(GStoreConfig.TEST_PLANT, "skip_fence");
    assertThatThrownBy(() -> GStoreConfig.from(conf)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(GStoreConfig.TEST_PLANT).hasMessageContaining("skip-validation, skip-drain, skip-fence")
        .hasMessageContaining("'skip_fence'");
  }
}
