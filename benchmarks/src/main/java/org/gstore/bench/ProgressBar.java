package org.gstore.bench;

import java.io.PrintStream;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;
import java.util.function.Supplier;

/** A one-line progress bar on a terminal, redrawn a few times a second from a background thread. */
public final class ProgressBar implements AutoCloseable {
  private static final int WIDTH = 30;

  private final PrintStream out;
  private final DoubleSupplier fraction;
  private final Supplier<String> status;
  private final Thread thread;

  /**
   * @param fraction how much is done, from 0 to 1
   * @param status what to show after the bar
   */
  public ProgressBar(PrintStream out, DoubleSupplier fraction, Supplier<String> status) {
    this.out = out;
    this.fraction = fraction;
    this.status = status;
    this.thread = new Thread(() -> {
      while (!Thread.currentThread().isInterrupted()) {
        draw();
        try {
          TimeUnit.MILLISECONDS.sleep(250);
        } catch (InterruptedException e) {
          return;
        }
      }
    }, "progress");
    this.thread.setDaemon(true);
    this.thread.start();
  }

  private synchronized void draw() {
    int filled = (int) Math.round(WIDTH * Math.max(0, Math.min(1, fraction.getAsDouble())));
    out.print("\r[" + "#".repeat(filled) + ".".repeat(WIDTH - filled) + "] " + status.get() + "   ");
    out.flush();
  }

  /** Draws the final state and ends the line. */
  @Override
  public void close() {
    thread.interrupt();
    try {
      thread.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    draw();
    out.println();
  }
}
