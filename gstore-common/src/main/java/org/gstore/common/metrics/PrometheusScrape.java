package org.gstore.common.metrics;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * G-Store's metrics as a region server's info server publishes them at {@code /prometheus} (HBase 2.6 serves every
 * metrics2 source there): the names of {@code docs/operations.md}, under {@link #PREFIX} and in snake case, as
 * {@code conf/gstore-alerts.yml} names them too.
 */
public final class PrometheusScrape {
  /** What HBase puts before each metric of G-Store's region coprocessor. */
  public static final String PREFIX = "coprocessor_region_cp_org_gstore_coprocessor_g_store_region_coprocessor_";

  private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{[^}]*\\})?\\s+(\\S+)");
  private static final Pattern CAMEL_HUMP = Pattern.compile("(?<=[a-z0-9])(?=[A-Z])");

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  /** The scraped name of a metric {@code docs/operations.md} names, e.g. {@code TxnCommits}. */
  public static String prometheusName(String metric) {
    return PREFIX + snake(metric);
  }

  /** {@code TxnCommitLatencyMicros} as HBase's Prometheus servlet writes it: {@code txn_commit_latency_micros}. */
  public static String snake(String camel) {
    return CAMEL_HUMP.matcher(camel).replaceAll("_").toLowerCase(java.util.Locale.ROOT);
  }

  /**
   * G-Store's samples in a {@code /prometheus} page, by name without {@link #PREFIX} (a histogram's percentiles as
   * {@code txn_commit_latency_micros_99th_percentile}); anything else in the page is left out.
   */
  public static Map<String, Double> parse(String page) {
    Map<String, Double> samples = new HashMap<>();
    for (String line : page.split("\n")) {
      if (!line.startsWith(PREFIX)) {
        continue;
      }
      Matcher m = SAMPLE.matcher(line);
      if (m.find()) {
        try {
          samples.put(m.group(1).substring(PREFIX.length()), Double.parseDouble(m.group(3)));
        } catch (NumberFormatException notANumber) {
          // a sample Prometheus itself would refuse: left out
        }
      }
    }
    return samples;
  }

  /**
   * Scrapes one server's info server.
   *
   * @throws IOException if the server does not answer within 2 s, or answers with anything but 200 (an info server
   *     that asks for SPNEGO, {@code hbase.security.authentication.ui=kerberos}, answers 401)
   */
  public Map<String, Double> scrape(String scheme, String host, int port) throws IOException {
    HttpRequest request = HttpRequest.newBuilder(URI.create(scheme + "://" + host + ":" + port + "/prometheus"))
        .timeout(Duration.ofSeconds(2)).build();
    try {
      HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        throw new IOException("HTTP " + response.statusCode() + " from " + request.uri());
      }
      return parse(response.body());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted scraping " + request.uri(), e);
    }
  }
}
