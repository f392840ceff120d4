package org.gstore.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.gstore.history.CheckReport;
import org.gstore.history.History;
import org.gstore.history.HistoryFormatException;
import org.gstore.history.HistoryReader;
import org.gstore.history.ListAppendChecker;

/**
 * {@code gstore check-history FILE [--consistency serializable|strict-serializable]}: checks a list-append history
 * for anomalies and prints the verdict line, then a few instances of each anomaly found. Exit code 0: none; 1:
 * anomalies; 2: a history it cannot read (the line and what is wrong with it), one with nothing to check (no
 * transaction completed ok), or bad usage. A torn last line is passed over with a warning.
 */
final class CheckHistoryCommand {
  static final String USAGE = "gstore check-history FILE [--consistency serializable|strict-serializable]";

  private CheckHistoryCommand() {}

  static int run(String[] args, PrintStream out, PrintStream err) {
    Path file = null;
    CheckReport.Consistency consistency = CheckReport.Consistency.STRICT_SERIALIZABLE;
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--consistency") && i + 1 < args.length) {
        try {
          consistency = CheckReport.Consistency.parse(args[++i]);
        } catch (IllegalArgumentException e) {
          err.println("gstore: " + e.getMessage());
          return 2;
        }
      } else if (file == null && !args[i].startsWith("--")) {
        file = Path.of(args[i]);
      } else {
        err.println("gstore: usage: " + USAGE);
        return 2;
      }
    }
    if (file == null || !Files.isRegularFile(file)) {
      err.println("gstore: " + (file == null ? "usage: " + USAGE : "no history file " + file));
      return 2;
    }
    return check(file, consistency, out, err);
  }

  /** Checks {@code file}; returns the exit code. */
  static int check(Path file, CheckReport.Consistency consistency, PrintStream out, PrintStream err) {
    CheckReport report;
    History history = null;
    try {
      history = HistoryReader.readHistory(file);
      history.warnings().forEach(w -> err.println("gstore: warning: " + w));
      report = ListAppendChecker.check(history.ops(), consistency);
    } catch (HistoryFormatException e) {
      err.println("gstore: cannot check the history " + file + ": "
          + (history == null ? e : history.located(e)).getMessage());
      return 2;
    } catch (IOException | RuntimeException e) { // not text, not readable: not a verdict on the history
      err.println("gstore: cannot read the history " + file + ": " + e);
      return 2;
    }
    out.println(report.line());
    for (String example : report.examples()) {
      out.println("  " + example);
    }
    report.notes().forEach(n -> out.println("  note: " + n));
    return report.valid() ? 0 : 1;
  }
}
