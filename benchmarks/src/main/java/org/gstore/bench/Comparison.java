package org.gstore.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * G-Store against each other system, point by point: the ratio of their mean latency per operation and of their
 * CPU per operation in each interleaved round, and the median and range of those ratios over the rounds. A ratio
 * taken within one round compares runs made minutes apart at most, on the same warm cluster; its spread over the
 * rounds is the noise a reader must allow for.
 */
final class Comparison {
  /** The system every other is compared with. */
  static final String SUBJECT = "gstore";

  /** A ratio's median and range over the rounds (NaN when a round lacked the measure). */
  record Spread(double median, double min, double max, int rounds) {
    static Spread of(List<Double> values) {
      List<Double> known = values.stream().filter(v -> !v.isNaN()).sorted().toList();
      if (known.isEmpty()) {
        return new Spread(Double.NaN, Double.NaN, Double.NaN, 0);
      }
      int n = known.size();
      double median = n % 2 == 1 ? known.get(n / 2) : (known.get(n / 2 - 1) + known.get(n / 2)) / 2;
      return new Spread(median, known.get(0), known.get(n - 1), n);
    }

    String describe() {
      if (rounds == 0) {
        return "n/a";
      }
      return rounds == 1 ? String.format(Locale.ROOT, "%.2fx (one round)", median)
          : String.format(Locale.ROOT, "%.2fx (%.2f-%.2f over %d rounds)", median, min, max, rounds);
    }
  }

  /** G-Store against {@code other} at one point: latency and CPU per operation. */
  record Ratio(String workload, int clients, String other, Spread latency, Spread cpu) {
    String describe() {
      return String.format(Locale.ROOT, "%s, %d clients: %s/%s mean latency %s, CPU per op %s", workload, clients,
          SUBJECT, other, latency.describe(), cpu.describe());
    }
  }

  private Comparison() {}

  /** Every ratio the results allow, in the order their points ran. */
  static List<Ratio> of(List<Recorder.Result> results) {
    Map<String, List<Recorder.Result>> byPoint = new LinkedHashMap<>();
    results.forEach(r -> byPoint.computeIfAbsent(r.workload() + "\u0000" + r.clients(), p -> new ArrayList<>()).add(r));
    List<Ratio> ratios = new ArrayList<>();
    for (List<Recorder.Result> point : byPoint.values()) {
      List<String> others = point.stream().map(Recorder.Result::system).filter(s -> !s.equals(SUBJECT)).distinct()
          .toList();
      for (String other : others) {
        Spread latency = Spread.of(perRound(point, other, Recorder.Result::meanMs));
        Spread cpu = Spread.of(perRound(point, other, Recorder.Result::cpuMsPerOp));
        if (latency.rounds() > 0) {
          ratios.add(new Ratio(point.get(0).workload(), point.get(0).clients(), other, latency, cpu));
        }
      }
    }
    return ratios;
  }

  /** The median over the rounds of one system's measure at one point. */
  static Spread median(List<Recorder.Result> point, String system, ToDoubleFunction<Recorder.Result> measure) {
    return Spread.of(point.stream().filter(r -> r.system().equals(system)).map(measure::applyAsDouble).toList());
  }

  /** G-Store's measure over {@code other}'s, round by round, for the rounds that ran both. */
  private static List<Double> perRound(List<Recorder.Result> point, String other,
      ToDoubleFunction<Recorder.Result> measure) {
    List<Double> ratios = new ArrayList<>();
    for (Recorder.Result subject : point) {
      if (!subject.system().equals(SUBJECT)) {
        continue;
      }
      point.stream().filter(r -> r.system().equals(other) && r.round() == subject.round()).findFirst()
          .ifPresent(o -> ratios.add(measure.applyAsDouble(subject) / measure.applyAsDouble(o)));
    }
    return Collections.unmodifiableList(ratios);
  }
}
