package org.gstore.history;

import java.util.List;

/**
 * A history as read from a file: its operations, the line each came from (to name it in errors found after
 * parsing), and what the reader passed over with a warning (a torn last line).
 */
public record History(List<Op> ops, long[] lines, List<String> warnings) {
  /** The line of the operation whose index is {@code index}; -1 if there is none. */
  public long lineOf(long index) {
    for (int i = 0; i < ops.size(); i++) {
      if (ops.get(i).index() == index) {
        return lines[i];
      }
    }
    return -1;
  }

  /** {@code e}, named by its line when it is about an operation of this history. */
  public HistoryFormatException located(HistoryFormatException e) {
    long line = e.line() < 0 && e.index() >= 0 ? lineOf(e.index()) : -1;
    return line >= 0 ? e.onLine(line) : e;
  }
}
