package org.gstore.bench;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;

/**
 * A flight-recording event spanning one point's measured window: {@link ProfileSteps} counts only the execution
 * samples inside such windows, so a recording can start before the warm-up (see {@link FlightRecording}) and still
 * describe the measured points alone.
 */
@Name(MeasuredPoint.NAME)
@Label("Measured point")
@Category("G-Store benchmark")
@Description("The measured window of one benchmark point")
final class MeasuredPoint extends Event {
  static final String NAME = "org.gstore.bench.MeasuredPoint";

  @Label("Point")
  String point;

  MeasuredPoint(String point) {
    this.point = point;
  }
}
