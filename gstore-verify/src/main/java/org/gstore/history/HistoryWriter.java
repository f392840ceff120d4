package org.gstore.history;

import java.io.BufferedWriter;
import java.io.Closeable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes a history, one operation a line, as {@link HistoryReader} reads it. Thread-safe: clients record their
 * operations as they invoke and complete them, and each line's index is the order in which it was written.
 */
public final class HistoryWriter implements Closeable {
  private final BufferedWriter out;
  private long next;
  private boolean closed;

  public HistoryWriter(Path file) throws IOException {
    this.out = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
  }

  /**
   * Records an operation now (its index is assigned here); returns it as recorded. Once the history is closed,
   * nothing more is written: a client still running when its run ended leaves its operation unfinished.
   */
  public Op record(long process, Op.Type type, String f, java.util.List<Mop> value) throws IOException {
    return record(process, type, f, value, null);
  }

  /** Records an operation of {@code group} (null: of none), as {@link #record(long, Op.Type, String, java.util.List)}. */
  public synchronized Op record(long process, Op.Type type, String f, java.util.List<Mop> value, String group)
      throws IOException {
    Op op = new Op(next++, System.nanoTime(), process, type, f, value, group);
    if (!closed) {
      out.write(line(op));
      out.newLine();
    }
    return op;
  }

  /** The JSON line of {@code op}. */
  public static String line(Op op) {
    StringBuilder sb = new StringBuilder(96).append("{\"index\":").append(op.index()).append(",\"time\":")
        .append(op.time()).append(",\"process\":").append(op.process()).append(",\"type\":\"")
        .append(op.type().json()).append("\",\"f\":\"").append(op.f()).append("\",\"value\":");
    if (op.value().isEmpty() && !op.isTransactional()) {
      sb.append("null");
    } else {
      sb.append(op.value());
    }
    if (op.group() != null) {
      sb.append(",\"group\":\"").append(op.group()).append('"'); // the workloads' names need no escaping
    }
    return sb.append('}').toString();
  }

  @Override
  public synchronized void close() throws IOException {
    closed = true;
    out.close();
  }
}
