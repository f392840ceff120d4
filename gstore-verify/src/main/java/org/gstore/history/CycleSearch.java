package org.gstore.history;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Finds the dependency cycles of a graph and names each by the edges it needs, one per strongly connected
 * component and kind (so counts are of components, not of cycles), each the shortest through the edge that makes it
 * that kind: {@code G0} (write-write edges
 * only), {@code G1c} (write-write and write-read), {@code G-single} (exactly one read-write), {@code G2} (two or
 * more). A read-write edge closes a {@code G-single} exactly when its reader is reachable from its writer over
 * write-write and write-read edges: one search from each distinct writer decides it for all of that writer's
 * anti-dependencies, within {@link #G_SINGLE_VISITS} node visits per component (past that, which only a component
 * of millions of edges reaches, the component is named {@code G2} and the report says so). With real time, one cycle is reported per component that real-time edges join out of
 * several data components, named by the edges of the cycle found, as breaking strict serializability.
 */
final class CycleSearch {
  private static final int DATA = DependencyGraph.WW | DependencyGraph.WR | DependencyGraph.RW;
  private static final int ALL = DATA | DependencyGraph.RT;
  /** How many nodes the search for a {@code G-single} may visit in one component before it names it G2. */
  static final long G_SINGLE_VISITS = 50_000_000;
  /** How many steps of a cycle are shown before the last one. */
  private static final int SHOWN_STEPS = 12;

  private final DependencyGraph graph;
  private final List<Txn> txns;
  private final CheckReport report;

  CycleSearch(DependencyGraph graph, List<Txn> txns, CheckReport report) {
    this.graph = graph;
    this.txns = txns;
    this.report = report;
  }

  /** The cycles among data dependencies. */
  void dataCycles() {
    int[] ww = graph.components(DependencyGraph.WW);
    for (int edge : firstPerComponent(ww, DependencyGraph.WW).values()) {
      found(Anomaly.Kind.G0, graph.cycleThrough(edge, DependencyGraph.WW, ww), false);
    }
    int[] wwr = graph.components(DependencyGraph.WW | DependencyGraph.WR);
    for (int edge : firstPerComponent(wwr, DependencyGraph.WR).values()) {
      found(Anomaly.Kind.G1C, graph.cycleThrough(edge, DependencyGraph.WW | DependencyGraph.WR, wwr), false);
    }
    int[] all = graph.components(DATA);
    for (List<Integer> edges : perComponent(all, DependencyGraph.RW).values()) {
      int closing = singleAntiDependencyCycle(edges, wwr, all);
      if (closing >= 0) {
        found(Anomaly.Kind.G_SINGLE, graph.cycleThrough(closing, DependencyGraph.WW | DependencyGraph.WR, all),
            false);
      } else {
        found(Anomaly.Kind.G2, graph.cycleThrough(edges.get(0), DATA, all), false);
      }
    }
  }

  /**
   * A read-write edge of {@code antiDependencies} (one component of {@code all}) whose writer reaches its reader
   * over write-write and write-read edges, or -1. Edges inside one component of those ({@code wwr}) close a cycle at
   * once; the others need a search from their writer, made once per writer.
   */
  private int singleAntiDependencyCycle(List<Integer> antiDependencies, int[] wwr, int[] all) {
    for (int edge : antiDependencies) {
      if (wwr[graph.from(edge)] == wwr[graph.to(edge)]) {
        return edge;
      }
    }
    Map<Integer, List<Integer>> byWriter = new LinkedHashMap<>();
    for (int edge : antiDependencies) {
      byWriter.computeIfAbsent(graph.to(edge), w -> new java.util.ArrayList<>()).add(edge);
    }
    long visits = 0;
    java.util.BitSet reached = new java.util.BitSet(graph.nodes());
    for (Map.Entry<Integer, List<Integer>> writer : byWriter.entrySet()) {
      if (visits > G_SINGLE_VISITS) {
        report.note("a component of " + antiDependencies.size() + " anti-dependencies was searched for a G-single"
            + " through " + G_SINGLE_VISITS + " node visits, not to the end: named G2, it may hold a G-single");
        return -1;
      }
      reached.clear();
      visits += graph.reach(writer.getKey(), DependencyGraph.WW | DependencyGraph.WR, all, reached);
      for (int edge : writer.getValue()) {
        if (reached.get(graph.from(edge))) {
          return edge;
        }
      }
    }
    return -1;
  }

  /** The cycles that need real-time edges: one per component that real time joins. */
  void realTimeCycles() {
    int[] data = graph.components(DATA);
    int[] all = graph.components(ALL);
    Map<Integer, List<Integer>> realtime = perComponent(all, DependencyGraph.RT);
    for (List<Integer> edges : realtime.values()) {
      for (int edge : edges) {
        if (data[graph.from(edge)] != data[graph.to(edge)]) { // a cycle the data dependencies alone do not make
          List<DependencyGraph.Step> cycle = graph.cycleThrough(edge, ALL, all);
          found(kindOf(cycle), cycle, true);
          break;
        }
      }
    }
  }

  private static Anomaly.Kind kindOf(List<DependencyGraph.Step> cycle) {
    long rw = cycle.stream().filter(s -> s.type() == DependencyGraph.RW).count();
    if (rw == 1) {
      return Anomaly.Kind.G_SINGLE;
    }
    if (rw > 1) {
      return Anomaly.Kind.G2;
    }
    return cycle.stream().anyMatch(s -> s.type() == DependencyGraph.WR) ? Anomaly.Kind.G1C : Anomaly.Kind.G0;
  }

  private Map<Integer, Integer> firstPerComponent(int[] comp, int type) {
    Map<Integer, Integer> first = new LinkedHashMap<>();
    perComponent(comp, type).forEach((c, edges) -> first.put(c, edges.get(0)));
    return first;
  }

  /** The edges of {@code type} inside each component, by component. */
  private Map<Integer, List<Integer>> perComponent(int[] comp, int type) {
    Map<Integer, List<Integer>> by = new LinkedHashMap<>();
    for (int edge : graph.internalEdges(comp, type)) {
      by.computeIfAbsent(comp[graph.from(edge)], c -> new java.util.ArrayList<>()).add(edge);
    }
    return by;
  }

  private void found(Anomaly.Kind kind, List<DependencyGraph.Step> cycle, boolean realtime) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < cycle.size(); i++) {
      DependencyGraph.Step s = cycle.get(i);
      if (i == SHOWN_STEPS && cycle.size() > SHOWN_STEPS + 1) { // a long real-time cycle: its ends tell enough
        sb.append("\n    ... ").append(cycle.size() - SHOWN_STEPS - 1).append(" more");
        i = cycle.size() - 1;
        s = cycle.get(i);
      }
      sb.append("\n    ").append(txns.get(s.from()).describe()).append("\n      -").append(name(s.type()))
          .append(s.key() == null ? "" : " " + s.key()).append("->");
    }
    sb.append(" (the first again)");
    report.found(new Anomaly(kind, realtime, "a cycle of " + cycle.size() + ":" + sb));
  }

  private static String name(int type) {
    return switch (type) {
      case DependencyGraph.WW -> "ww";
      case DependencyGraph.WR -> "wr";
      case DependencyGraph.RW -> "rw";
      default -> "realtime";
    };
  }
}
