package org.gstore.cli.top;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.hbase.client.Connection;
import org.gstore.client.GStoreAdmin;
import org.gstore.client.GStoreClient;
import org.jline.terminal.Attributes;
import org.jline.terminal.Size;
import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;
import org.jline.utils.AttributedString;
import org.jline.utils.Display;
import org.jline.utils.InfoCmp;
import org.jline.utils.NonBlockingReader;

/**
 * {@code gstore top}: a live view of G-Store in the manner of HBase's {@code hbtop}, refreshed every second, with
 * keys to sort and filter the groups ({@link TopScreen#KEYS}); {@code --once} prints one frame (two samples a second
 * apart, so its rates mean something) and exits.
 */
public final class TopCommand {
  static final long REFRESH_MILLIS = 1000;
  private static final long KEY_WAIT_MILLIS = 200;
  /**
   * Client settings for sampling: a server that is down or paused must cost a frame a few seconds, not the client's
   * default minutes of retries.
   */
  public static final java.util.Map<String, String> CLIENT_SETTINGS = java.util.Map.of(
      "hbase.rpc.timeout", "2000", "hbase.client.operation.timeout", "4000", "hbase.client.retries.number", "2",
      "hbase.client.pause", "100");
  private static final int ESC = 27;

  private final TopSource source;
  private final TopScreen screen = new TopScreen();

  private TopCommand(TopSource source) {
    this.source = source;
  }

  /** Prints one frame of {@code width} columns to {@code out}; true if every server's metrics were read. */
  public static boolean once(Connection connection, PrintStream out, int width) throws Exception {
    try (GStoreClient client = GStoreClient.create(connection); GStoreAdmin admin = client.admin()) {
      TopSource source = new TopSource(connection, admin);
      source.sample();
      Thread.sleep(REFRESH_MILLIS);
      Frame frame = source.sample();
      new TopScreen().render(frame, width, Integer.MAX_VALUE, null).forEach(out::println);
      return frame.problems().isEmpty();
    }
  }

  /**
   * Runs the live view until {@code q}; standard error is held meanwhile ({@code capture}) and printed after.
   *
   * @throws IOException if there is no terminal to draw on
   */
  public static boolean live(Connection connection, StderrCapture capture) throws Exception {
    try (GStoreClient client = GStoreClient.create(connection); GStoreAdmin admin = client.admin();
        Terminal terminal = TerminalBuilder.builder().system(true).build()) {
      if (Terminal.TYPE_DUMB.equals(terminal.getType()) || Terminal.TYPE_DUMB_COLOR.equals(terminal.getType())) {
        throw new IOException("gstore top needs a terminal (standard input and output a tty); --once prints one"
            + " frame without one");
      }
      new TopCommand(new TopSource(connection, admin)).run(terminal, capture);
      return true;
    }
  }

  /** Starts holding standard error, for {@link #live}: call before anything logs. */
  public static StderrCapture holdStderr() {
    return StderrCapture.install();
  }

  private void run(Terminal terminal, StderrCapture capture) throws IOException {
    Attributes saved = terminal.enterRawMode();
    AtomicBoolean resized = new AtomicBoolean(true);
    terminal.handle(Terminal.Signal.WINCH, s -> resized.set(true));
    terminal.puts(InfoCmp.Capability.enter_ca_mode);
    terminal.puts(InfoCmp.Capability.cursor_invisible);
    terminal.flush();
    Display display = new Display(terminal, true);
    NonBlockingReader keys = terminal.reader();
    // sampling waits on the cluster (seconds, while a server is down): on its own thread, so keys answer at once
    AtomicReference<Frame> latest = new AtomicReference<>(new Frame(Instant.now(), List.of(), List.of(),
        List.of("sampling the cluster...")));
    Thread sampler = new Thread(() -> sample(latest), "gstore-top-sampler");
    sampler.setDaemon(true);
    sampler.start();
    StringBuilder typing = null; // the filter being typed, or null
    try {
      while (true) {
        Size size = terminal.getSize();
        if (resized.getAndSet(false)) {
          display.clear();
          display.resize(size.getRows(), size.getColumns());
        }
        List<String> lines = new ArrayList<>(screen.render(latest.get(), size.getColumns(), size.getRows() - 1,
            typing == null ? null : typing.toString()));
        String warning = capture.last();
        if (warning != null && lines.size() < size.getRows()) {
          lines.add(TopScreen.clip("stderr: " + warning, size.getColumns()));
        }
        display.update(lines.stream().map(AttributedString::new).toList(), -1);
        terminal.flush();
        int key = keys.read(KEY_WAIT_MILLIS);
        if (key == NonBlockingReader.EOF) {
          return;
        } else if (key == NonBlockingReader.READ_EXPIRED) {
          continue; // redraw: a new frame may have come
        } else if (typing != null) {
          typing = typed(typing, key);
        } else if (key == 'q' || key == 'Q') {
          return;
        } else if (key == 's') {
          screen.nextSort();
        } else if (key == 'r') {
          screen.reverse();
        } else if (key == 'c') {
          screen.filter("");
        } else if (key == '/' || key == 'f') {
          typing = new StringBuilder(screen.filter());
        }
      }
    } finally {
      sampler.interrupt();
      terminal.puts(InfoCmp.Capability.cursor_visible);
      terminal.puts(InfoCmp.Capability.exit_ca_mode);
      terminal.flush();
      terminal.setAttributes(saved);
    }
  }

  /** The sampler thread: a frame a second until interrupted; {@link TopSource#sample()} never throws. */
  private void sample(AtomicReference<Frame> latest) {
    while (!Thread.currentThread().isInterrupted()) {
      long started = System.currentTimeMillis();
      latest.set(source.sample());
      try {
        Thread.sleep(Math.max(0, REFRESH_MILLIS - (System.currentTimeMillis() - started)));
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** One key while typing a filter: the text so far, or null once Enter applied it or Esc dropped it. */
  private StringBuilder typed(StringBuilder typing, int key) {
    if (key == '\r' || key == '\n') {
      screen.filter(typing.toString());
      return null;
    }
    if (key == ESC) {
      return null;
    }
    if (key == 127 || key == 8) {
      if (typing.length() > 0) {
        typing.setLength(typing.length() - 1);
      }
    } else if (key >= 32 && key < 127) {
      typing.append((char) key);
    }
    return typing;
  }
}
