package org.gstore.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import jdk.jfr.Recording;

/**
 * A flight recording of this JVM, written when it closes; {@code gstore profile FILE} reads the execution samples
 * taken inside the measured points' windows ({@link MeasuredPoint}). It records execution samples only, every
 * 10 ms, and it starts before the warm-up: a recording started just before the measured points made the first
 * point 3 to 4 times as costly in CPU (group-create K=50, one client, 2026-11-27: 101 to 118 ms of CPU per
 * lifecycle, 11 to 13 a second, against 33.6 ms and 42.5 a second unrecorded; most likely the JVM recompiling what
 * starting the recording invalidated, not measured further), so the profile described another system than the
 * one measured. Started before the warm-up, the same point cost 45 ms of CPU recorded: still a third more.
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
    Recording recording = new Recording();
    recording.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(10));
    recording.enable(MeasuredPoint.class);
    recording.setName("gstore-bench");
    recording.start();
    return new FlightRecording(recording, file, out);
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
