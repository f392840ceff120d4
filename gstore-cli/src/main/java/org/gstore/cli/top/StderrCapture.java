package org.gstore.cli.top;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

/**
 * Keeps what would be written to standard error off a full-screen view: HBase's client and G-Store's log warnings
 * there, which would scribble over the screen. Installed before anything logs (a console appender keeps the stream it
 * found), it holds the last lines for the view to show and for {@link #close()} to print once the screen is gone.
 */
public final class StderrCapture extends ByteArrayOutputStream implements AutoCloseable {
  private static final int KEPT = 20;
  private final PrintStream original = System.err;
  private final Deque<String> lines = new ArrayDeque<>();

  static StderrCapture install() {
    StderrCapture capture = new StderrCapture();
    System.setErr(new PrintStream(capture, true, StandardCharsets.UTF_8));
    return capture;
  }

  @Override
  public synchronized void write(byte[] b, int off, int len) {
    for (int i = off; i < off + len; i++) {
      write(b[i]);
    }
  }

  @Override
  public synchronized void write(int b) {
    if (b == '\n') {
      String line = toString(StandardCharsets.UTF_8);
      reset();
      if (!line.isBlank() && !line.startsWith("\tat ") && !line.startsWith("\t...")) { // stack frames: noise here
        lines.addLast(line);
        if (lines.size() > KEPT) {
          lines.removeFirst();
        }
      }
    } else {
      super.write(b);
    }
  }

  /** The newest line written, or null. */
  public synchronized String last() {
    return lines.peekLast();
  }

  synchronized List<String> all() {
    return List.copyOf(lines);
  }

  /** Gives standard error back and prints what was held there. */
  @Override
  public void close() {
    System.setErr(original);
    all().forEach(original::println);
  }
}
