package org.gstore.history;

/** A history the checker cannot read: the line, and what is wrong with it. */
public final class HistoryFormatException extends Exception {
  private static final long serialVersionUID = 1L;

  private final long line;

  public HistoryFormatException(long line, String problem) {
    super("line " + line + ": " + problem);
    this.line = line;
  }

  /** A problem with the history as a whole, or with an operation found by its index ({@code line} is -1). */
  public HistoryFormatException(String problem) {
    super(problem);
    this.line = -1;
  }

  public long line() {
    return line;
  }
}
