package org.gstore.history;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Dependencies between transactions, each edge typed and named by a key: write-write ({@link #WW}), write-read
 * ({@link #WR}), read-write ({@link #RW}, an anti-dependency) and real-time ({@link #RT}). Primitive arrays: a
 * million-operation history makes millions of edges.
 */
final class DependencyGraph {
  static final int WW = 1;
  static final int WR = 2;
  static final int RW = 4;
  static final int RT = 8;

  /** One edge of a cycle: from, to, its type, the key it is about (null for real time). */
  record Step(int from, int to, int type, String key) {}

  private final int nodes;
  private int edges;
  private int[] src = new int[1 << 16];
  private int[] dst = new int[1 << 16];
  private byte[] types = new byte[1 << 16];
  private String[] keys = new String[1 << 16];
  /** CSR adjacency, built on first traversal: the edges of node n are order[start[n]] .. order[start[n + 1] - 1]. */
  private int[] start;
  private int[] order;

  DependencyGraph(int nodes) {
    this.nodes = nodes;
  }

  int nodes() {
    return nodes;
  }

  void add(int from, int to, int type, String key) {
    if (from == to) {
      return;
    }
    if (edges == src.length) {
      src = Arrays.copyOf(src, edges * 2);
      dst = Arrays.copyOf(dst, edges * 2);
      types = Arrays.copyOf(types, edges * 2);
      keys = Arrays.copyOf(keys, edges * 2);
    }
    src[edges] = from;
    dst[edges] = to;
    types[edges] = (byte) type;
    keys[edges] = key;
    edges++;
    start = null;
  }

  private void index() {
    if (start != null) {
      return;
    }
    start = new int[nodes + 1];
    for (int e = 0; e < edges; e++) {
      start[src[e] + 1]++;
    }
    for (int n = 0; n < nodes; n++) {
      start[n + 1] += start[n];
    }
    order = new int[edges];
    int[] fill = Arrays.copyOf(start, nodes);
    for (int e = 0; e < edges; e++) {
      order[fill[src[e]]++] = e;
    }
  }

  /**
   * Strongly connected components over the edges whose type is in {@code mask} (iterative Tarjan): the component
   * of each node, numbered from 0.
   */
  int[] components(int mask) {
    index();
    int[] comp = new int[nodes];
    Arrays.fill(comp, -1);
    int[] low = new int[nodes];
    int[] num = new int[nodes];
    Arrays.fill(num, -1);
    int[] stack = new int[nodes];
    boolean[] onStack = new boolean[nodes];
    int[] callNode = new int[nodes];
    int[] callEdge = new int[nodes];
    int sp = 0;
    int counter = 0;
    int comps = 0;
    for (int root = 0; root < nodes; root++) {
      if (num[root] >= 0) {
        continue;
      }
      int depth = 0;
      callNode[0] = root;
      callEdge[0] = start[root];
      num[root] = low[root] = counter++;
      stack[sp++] = root;
      onStack[root] = true;
      while (depth >= 0) {
        int v = callNode[depth];
        if (callEdge[depth] < start[v + 1]) {
          int e = order[callEdge[depth]++];
          if ((types[e] & mask) == 0) {
            continue;
          }
          int w = dst[e];
          if (num[w] < 0) {
            num[w] = low[w] = counter++;
            stack[sp++] = w;
            onStack[w] = true;
            depth++;
            callNode[depth] = w;
            callEdge[depth] = start[w];
          } else if (onStack[w]) {
            low[v] = Math.min(low[v], num[w]);
          }
        } else {
          if (low[v] == num[v]) {
            int w;
            do {
              w = stack[--sp];
              onStack[w] = false;
              comp[w] = comps;
            } while (w != v);
            comps++;
          }
          depth--;
          if (depth >= 0) {
            int parent = callNode[depth];
            low[parent] = Math.min(low[parent], low[v]);
          }
        }
      }
    }
    return comp;
  }

  /** The edges (their numbers) whose type is in {@code mask} and whose ends are in one component of {@code comp}. */
  List<Integer> internalEdges(int[] comp, int mask) {
    List<Integer> internal = new ArrayList<>();
    for (int e = 0; e < edges; e++) {
      if ((types[e] & mask) != 0 && comp[src[e]] == comp[dst[e]]) {
        internal.add(e);
      }
    }
    return internal;
  }

  int from(int edge) {
    return src[edge];
  }

  int to(int edge) {
    return dst[edge];
  }

  int type(int edge) {
    return types[edge];
  }

  /**
   * Marks in {@code seen} every node reachable from {@code from} over edges whose type is in {@code mask}, staying
   * inside {@code from}'s component of {@code comp}; returns how many nodes it visited.
   */
  int reach(int from, int mask, int[] comp, java.util.BitSet seen) {
    index();
    int component = comp[from];
    int[] queue = new int[16];
    int head = 0;
    int tail = 0;
    seen.set(from);
    queue[tail++] = from;
    while (head < tail) {
      int v = queue[head++];
      for (int i = start[v]; i < start[v + 1]; i++) {
        int e = order[i];
        int w = dst[e];
        if ((types[e] & mask) != 0 && comp[w] == component && !seen.get(w)) {
          seen.set(w);
          if (tail == queue.length) {
            queue = Arrays.copyOf(queue, tail * 2);
          }
          queue[tail++] = w;
        }
      }
    }
    return tail;
  }

  /**
   * The shortest cycle through {@code edge} whose other edges have types in {@code mask} and stay inside the
   * edge's component of {@code comp}; null if there is none.
   */
  List<Step> cycleThrough(int edge, int mask, int[] comp) {
    index();
    int from = src[edge];
    int to = dst[edge];
    int component = comp[from];
    java.util.Map<Integer, Integer> via = new java.util.HashMap<>(); // node -> the edge that reached it
    ArrayDeque<Integer> queue = new ArrayDeque<>();
    via.put(to, -1);
    queue.add(to);
    while (!queue.isEmpty() && !via.containsKey(from)) {
      int v = queue.poll();
      for (int i = start[v]; i < start[v + 1]; i++) {
        int e = order[i];
        int w = dst[e];
        if ((types[e] & mask) != 0 && comp[w] == component && !via.containsKey(w)) {
          via.put(w, e);
          queue.add(w);
        }
      }
    }
    if (!via.containsKey(from)) {
      return null;
    }
    List<Step> path = new ArrayList<>();
    for (int v = from; v != to; v = src[via.get(v)]) {
      int e = via.get(v);
      path.add(new Step(src[e], dst[e], types[e], keys[e]));
    }
    java.util.Collections.reverse(path);
    List<Step> cycle = new ArrayList<>();
    cycle.add(new Step(from, to, types[edge], keys[edge]));
    cycle.addAll(path);
    return cycle;
  }
}
