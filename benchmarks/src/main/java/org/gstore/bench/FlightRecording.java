package org.gstore.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.text.ParseException;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;

/**
 * A flight recording of this JVM (the JDK's {@code profile} settings: execution samples every 10 ms, allocations,
 * locks) over the benchmark's measured points, written when it closes; {@code gstore profile FILE} reads it.
 */
final class FlightRecording implements AutoCloseable {
  private final Recording recording;
  private final Path file;
  private final PrintStream out;

  private FlightRecording(Recording recording, Path file, PrintStream out) {
    this.recording = recording;
    this.file = file;
    this.out = out;
  }

  /** Starts recording to {@code file}; with no file, records nothing. */
  static FlightRecording startIfAsked(Path file, PrintStream out) throws IOException {
    if (file == null) {
      return new FlightRecording(null, null, out);
    }
    try {
      Recording recording = new Recording(Configuration.getConfiguration("profile"));
      recording.setName("gstore-bench");
      recording.start();
      return new FlightRecording(recording, file, out);
    } catch (ParseException e) {
      throw new IOException("the JDK's JFR settings 'profile' could not be read", e);
    }
  }

  @Override
  public void close() throws IOException {
    if (recording == null) {
      return;
    }
    recording.stop();
    recording.dump(file);
    recording.close();
    out.println("Flight recording of the measured points: " + file.toAbsolutePath() + " (gstore profile "
        + file + ")");
  }
}
