package org.gstore.history;

/**
 * A history the checker cannot read, or has nothing to check in: where (the line, or the operation's index when
 * found after parsing), and what is wrong.
 */
public final class HistoryFormatException extends Exception {
  private static final long serialVersionUID = 1L;

  private final long line;
  private final long index;
  private final String problem;

  private HistoryFormatException(long line, long index, String problem) {
    super((line >= 0 ? "line " + line + (index >= 0 ? " (index " + index + ")" : "") + ": "
        : index >= 0 ? "index " + index + ": " : "") + problem);
    this.line = line;
    this.index = index;
    this.problem = problem;
  }

  public HistoryFormatException(long line, String problem) {
    this(line, -1, problem);
  }

  /** A problem with the history as a whole. */
  public HistoryFormatException(String problem) {
    this(-1, -1, problem);
  }

  /** A problem with the operation whose {@code index} field is {@code index}, found after parsing. */
  public static HistoryFormatException atIndex(long index, String problem) {
    return new HistoryFormatException(-1, index, problem);
  }

  /** The same problem, named by the line of the history file that holds its operation. */
  public HistoryFormatException onLine(long line) {
    HistoryFormatException named = new HistoryFormatException(line, index, problem);
    named.setStackTrace(getStackTrace());
    return named;
  }

  /** The line it is about; -1 if none is known. */
  public long line() {
    return line;
  }

  /** The index of the operation it is about; -1 if none. */
  public long index() {
    return index;
  }
}
