package org.gstore.coprocessor.config;

import java.util.Locale;

/**
 * A defect planted on purpose in a test cluster ({@value GStoreConfig#TEST_PLANT}), one at a time, to show that a
 * chaos run's checks catch what it breaks: the measure of their power (docs/recovery.md, "Planted defects"). Honoured
 * only where {@value GStoreConfig#TEST_FAULTS_ENABLED} is on; anywhere else the server ignores it, saying so.
 */
public enum TestPlant {
  /** No defect: what every cluster runs. */
  NONE,
  /** The transaction manager commits without checking that the rows a transaction read are unchanged (OCC). */
  SKIP_VALIDATION,
  /** A closing leader region lets go without waiting for its groups' commits to be shipped to HBase. */
  SKIP_DRAIN,
  /** Plain (non-G-Store) writes pass the fence of grouped rows, as if a join never fenced them. */
  SKIP_FENCE;

  /** The name a configuration gives it: {@code skip-validation}, {@code skip-drain}, {@code skip-fence}. */
  public String configName() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /** The plant {@code value} names ({@code none} or empty: none). */
  public static TestPlant parse(String value) {
    String v = value == null ? "" : value.trim();
    if (v.isEmpty()) {
      return NONE;
    }
    for (TestPlant p : values()) {
      if (p.configName().equals(v)) {
        return p;
      }
    }
    throw new IllegalArgumentException(GStoreConfig.TEST_PLANT + " must be one of none, skip-validation, skip-drain,"
        + " skip-fence, not '" + v + "'");
  }
}
