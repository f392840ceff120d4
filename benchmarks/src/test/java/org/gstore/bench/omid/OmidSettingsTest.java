package org.gstore.bench.omid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class OmidSettingsTest {
  @Test
  void noSettingsMeansTheBestConfigurationLabelledOmid() {
    assertThat(OmidSettings.parse("")).isEqualTo(OmidSettings.BEST);
    assertThat(OmidSettings.BEST.label()).isEqualTo("omid");
  }

  @Test
  void aVariantIsLabelledByWhatDiffersFromTheBest() {
    OmidSettings spin = OmidSettings.parse("wait=high-throughput");
    assertThat(spin.waitStrategy()).isEqualTo("HIGH_THROUGHPUT");
    assertThat(spin.label()).isEqualTo("omid-spin");

    OmidSettings v = OmidSettings.parse("low-latency=" + (OmidSettings.BEST.lowLatency() ? "no" : "yes")
        + ",batch-ms=7,post-commit=" + (OmidSettings.BEST.asyncPostCommit() ? "sync" : "async"));
    assertThat(v.batchPersistMillis()).isEqualTo(7);
    assertThat(v.label()).contains("lowlat").contains("-batch7").containsAnyOf("-sync", "-async");
    assertThat(v.label()).doesNotContain(",");
  }

  @Test
  void badSettingsAreRefusedWithTheReason() {
    assertThatThrownBy(() -> OmidSettings.parse("wait=fast")).hasMessageContaining("low-cpu or high-throughput");
    assertThatThrownBy(() -> OmidSettings.parse("colour=blue")).hasMessageContaining("unknown Omid setting 'colour'");
    assertThatThrownBy(() -> OmidSettings.parse("batch-ms=0")).hasMessageContaining("at least 1");
    assertThatThrownBy(() -> OmidSettings.parse("low-latency")).hasMessageContaining("key=value");
    assertThatThrownBy(() -> OmidSettings.parse("post-commit=later")).hasMessageContaining("async or sync");
  }

  @Test
  void theServerConfigurationSaysWhatTheSettingsSay() {
    String yaml = OmidTso.serverYaml(OmidSettings.parse("wait=high-throughput,batch-ms=3,low-latency=yes"), 4321);
    assertThat(yaml).contains("port: 4321").contains("waitStrategy: HIGH_THROUGHPUT")
        .contains("batchPersistTimeoutInMs: 3").contains("lowLatency: true")
        .contains("DefaultHBaseCommitTableStorageModule").contains("DefaultHBaseTimestampStorageModule");
  }
}
