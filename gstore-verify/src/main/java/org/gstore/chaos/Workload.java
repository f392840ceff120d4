package org.gstore.chaos;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/** What a chaos run puts under faults. */
public enum Workload {
  /** Transfers between the accounts of groups formed once: money is conserved, no transfer applied twice. */
  BANK,
  /** Groups forming and dissolving over overlapping keys, every operation in a history that is then checked. */
  APPEND;

  /** {@code bank}, {@code append} or {@code both}. */
  public static Set<Workload> parse(String s) {
    return switch (s.trim().toLowerCase(Locale.ROOT)) {
      case "both" -> EnumSet.allOf(Workload.class);
      case "bank" -> EnumSet.of(BANK);
      case "append" -> EnumSet.of(APPEND);
      default -> throw new IllegalArgumentException("a workload is bank, append or both, not " + s);
    };
  }
}
