package org.gstore.common.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class PrometheusScrapeTest {
  @Test
  void metricNamesAreSnakeCasedUnderTheCoprocessorsPrefix() {
    assertThat(PrometheusScrape.prometheusName("TxnCommitLatencyMicros"))
        .isEqualTo(PrometheusScrape.PREFIX + "txn_commit_latency_micros");
    assertThat(PrometheusScrape.snake("alertShippingBlocked")).isEqualTo("alert_shipping_blocked");
    assertThat(PrometheusScrape.snake("WalSyncs")).isEqualTo("wal_syncs");
  }

  @Test
  void onlyGStoresSamplesAreKeptAndMalformedOnesAreLeftOut() {
    String page = String.join("\n",
        "# TYPE " + PrometheusScrape.PREFIX + "txn_commits counter",
        PrometheusScrape.PREFIX + "txn_commits{context=\"regionserver\",hostname=\"vm\"} 1745",
        PrometheusScrape.PREFIX + "txn_commit_latency_micros_99th_percentile{context=\"regionserver\"} 33668",
        PrometheusScrape.PREFIX + "groups_led 12",
        PrometheusScrape.PREFIX + "shipper_lag_millis{x=\"y\"} NotANumber",
        "region_server_total_request_count{context=\"regionserver\"} 99",
        "");
    assertThat(PrometheusScrape.parse(page)).isEqualTo(Map.of("txn_commits", 1745.0,
        "txn_commit_latency_micros_99th_percentile", 33668.0, "groups_led", 12.0));
  }
}
