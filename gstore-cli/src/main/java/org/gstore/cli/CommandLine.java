package org.gstore.cli;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The {@code gstore} commands' options: {@code --flag value} pairs read and checked, each bad one refused with a
 * {@link UsageException} that says what the flag takes (exit code 2).
 */
final class CommandLine {
  private CommandLine() {}

  /** Bad command line: reported with exit code 2. */
  static final class UsageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UsageException(String message) {
      super(message);
    }
  }

  /** {@code 30s}, {@code 2m} or a number of seconds. */
  static Duration duration(Map<String, String> o, String flag, String dflt) {
    String raw = o.getOrDefault(flag, dflt).trim();
    try {
      if (raw.endsWith("m")) {
        return Duration.ofSeconds(Long.parseLong(raw.substring(0, raw.length() - 1)) * 60);
      }
      Duration d = Duration.ofSeconds(Long.parseLong(raw.endsWith("s") ? raw.substring(0, raw.length() - 1) : raw));
      if (!d.isNegative() && !d.isZero()) {
        return d;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw fail(flag + " takes a duration like 30s or 2m, not '" + raw + "'");
  }

  /** {@code --set key=value,key=value}: settings of the embedded cluster (G-Store's keys among them). */
  static Map<String, String> settings(Map<String, String> options) {
    Map<String, String> settings = new HashMap<>();
    String raw = options.get("--set");
    if (raw == null) {
      return settings;
    }
    if (options.containsKey("--conf")) {
      throw fail("--set configures the embedded cluster; with --conf, set keys in the cluster's hbase-site.xml");
    }
    for (String pair : raw.split(",")) {
      int eq = pair.indexOf('=');
      if (eq <= 0) {
        throw fail("--set takes key=value pairs separated by commas, not '" + pair + "'");
      }
      settings.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
    }
    return settings;
  }

  /** {@code --flag value} pairs after the command; {@code --quick} and {@code --secure} take no value. */
  static Map<String, String> options(String[] argv) {
    Map<String, String> options = new HashMap<>();
    for (int i = 1; i < argv.length; i++) {
      String flag = argv[i];
      if (!flag.startsWith("--")) {
        throw fail("unexpected argument '" + flag + "'");
      }
      if (flag.equals("--quick") || flag.equals("--secure") || flag.equals("--once")) {
        options.put(flag, "true");
      } else if (i + 1 < argv.length) {
        options.put(flag, argv[++i]);
      } else {
        throw fail("missing value after " + flag);
      }
    }
    return options;
  }

  static void allow(Map<String, String> options, String... known) {
    for (String flag : options.keySet()) {
      if (!Set.of(known).contains(flag)) {
        throw fail("unknown option " + flag + "\n" + GStore.USAGE);
      }
    }
  }

  /** A comma-separated list of positive whole numbers, such as {@code --clients 1,2,4}. */
  static List<Integer> positives(Map<String, String> options, String flag, String dflt) {
    List<Integer> values = new ArrayList<>();
    for (String v : options.getOrDefault(flag, dflt).split(",")) {
      values.add(positive(Map.of(flag, v.trim()), flag, 1));
    }
    return values;
  }

  static int positive(Map<String, String> options, String flag, int dflt) {
    return atLeast(1, options, flag, dflt);
  }

  static int nonNegative(Map<String, String> options, String flag, int dflt) {
    return atLeast(0, options, flag, dflt);
  }

  private static int atLeast(int min, Map<String, String> options, String flag, int dflt) {
    String value = options.get(flag);
    if (value == null) {
      return dflt;
    }
    try {
      int n = Integer.parseInt(value);
      if (n >= min) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw fail(flag + " must be a " + (min > 0 ? "positive" : "non-negative") + " whole number, not '" + value + "'");
  }

  static UsageException fail(String message) {
    return new UsageException(message);
  }
}
