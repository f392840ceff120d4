package org.gstore.common.protocol;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A simulated client that repeatedly forms a group over random keys, holds it, and deletes it; sometimes it deletes
 * while creation is still running. Requests go to the leader key's current host and are retried, with the same
 * request id, on timeout or NOT_LEADER, like the HBase client retries an endpoint call.
 */
final class SimClient {
  /** Where a client is in its cycle. */
  enum State { IDLE, CREATING, HOLDING, DELETING, DONE }

  private final Simulation sim;
  final String name;
  State state = State.IDLE;
  boolean stopping;
  int cycle;
  int requests;
  ClientRequest pending;
  long lastDelivery;
  /** The group this client was told was CREATED, until it asks to delete it. */
  GroupRecord held;

  SimClient(Simulation sim, String name) {
    this.sim = sim;
    this.name = name;
  }

  void next() {
    if (stopping) {
      state = State.DONE;
      return;
    }
    cycle++;
    List<Key> shuffled = new ArrayList<>(sim.keys);
    java.util.Collections.shuffle(shuffled, sim.random);
    int size = 1 + sim.random.nextInt(Math.min(sim.shape.maxMembers(), sim.keys.size()));
    Set<Key> members = new HashSet<>(shuffled.subList(0, size));
    Key leader = sim.pick(new ArrayList<>(new java.util.TreeSet<>(members)));
    CreateMode mode = sim.random.nextBoolean() ? CreateMode.ATOMIC : CreateMode.BEST_EFFORT;
    GroupId id = new GroupId(name + "-g" + cycle, leader);
    state = State.CREATING;
    ClientRequest create = new ClientRequest.Create(name + "-r" + (++requests), id, members, mode);
    issue(create);
    if (sim.random.nextDouble() < 0.15) {
      sim.at(sim.now() + sim.random.nextInt(60), name + " deletes during create", () -> {
        if (pending == create) {
          delete(id);
        }
      });
    }
  }

  /**
   * What CREATED promised holds until the client deletes the group, whatever crashed since: the group lives in
   * durable state (a restart resumes it), every member it reported joined is durably fenced to it, and the group
   * is active with exactly those members (while a restarted leader re-forms it, it may be CREATING).
   */
  void checkHeld() {
    if (held == null) {
      return;
    }
    GroupRecord g = sim.cluster.durable.groups.get(held.id());
    if (g == null || !g.group().equals(held.group())
        || g.phase() != GroupPhase.CREATING && g.phase() != GroupPhase.ACTIVE) {
      sim.violation(name + " holds " + held.group() + " but its durable record is " + g);
    } else if (g.phase() == GroupPhase.ACTIVE && !g.members(MemberState.Status.JOINED)
        .equals(held.members(MemberState.Status.JOINED))) {
      sim.violation(name + " was told " + held + " but the group is active as " + g);
    }
    for (Key k : held.members(MemberState.Status.JOINED)) {
      OwnerRecord o = sim.cluster.durable.owners.get(k);
      if (o == null || !o.group().equals(held.group())) {
        sim.violation(name + " holds " + held.group() + " with " + k + " joined, but its durable owner is " + o);
      }
    }
  }

  void stop() {
    stopping = true;
    if (state == State.IDLE) {
      state = State.DONE;
    }
  }

  void delete(GroupId id) {
    held = null;
    state = State.DELETING;
    issue(new ClientRequest.Delete(name + "-r" + (++requests), id));
  }

  void issue(ClientRequest request) {
    pending = request;
    send(request);
  }

  /** Sends to the leader key's current host; requests of one client arrive in the order sent. */
  void send(ClientRequest request) {
    NodeId host = sim.cluster.hostOf.get(request.group().leader());
    lastDelivery = Math.max(sim.now() + 1 + sim.random.nextInt(5), lastDelivery);
    sim.at(lastDelivery, () -> name + " -> " + host + " " + Describe.request(request), () -> {
      ProtocolNode engine = sim.cluster.engine(host);
      if (engine != null) {
        sim.output(host, engine.handle(request, sim.now()));
      }
    });
    sim.at(sim.now() + Simulation.CLIENT_TIMEOUT, () -> name + " timeout " + request.requestId(), () -> {
      if (pending == request) {
        send(request);
      }
    });
  }

  void onReply(Reply r) {
    if (pending == null || !pending.requestId().equals(r.requestId())) {
      return; // an answer to a request this client no longer waits for
    }
    switch (r.outcome()) {
      case NOT_LEADER -> {
        ClientRequest again = pending;
        sim.at(sim.now() + 10, name + " retries " + again.requestId(), () -> {
          if (pending == again) {
            send(again);
          }
        });
      }
      case CREATED -> {
        GroupId id = pending.group();
        held = ((Reply.Create) r).group();
        pending = null;
        state = State.HOLDING;
        sim.at(sim.now() + sim.random.nextInt(500), name + " deletes " + id, () -> delete(id));
      }
      case FAILED -> finished();
      case DELETED, NOT_FOUND -> finished();
      case EXISTS, INVALID -> sim.violation(name + " got " + r + " for " + pending);
    }
  }

  private void finished() {
    pending = null;
    state = State.IDLE;
    sim.at(sim.now() + sim.random.nextInt(100), name + " next", this::next);
  }
}
