package org.gstore.common.protocol;

/** The leader's answer to a {@link ClientRequest}. */
public sealed interface Reply {
  String requestId();

  /** Why a request could not be served at all, or how it ended. */
  enum Outcome {
    /** Create: creation terminated and the group is active with {@link Create#group()}'s joined members. */
    CREATED,
    /** Create: atomic creation met a refusal, the leader key was refused, or a delete overtook the create. */
    FAILED,
    /** Create: another live group already has this name and leader. */
    EXISTS,
    /** The request is malformed (no members, too many members, ...); nothing changed. */
    INVALID,
    /** This node does not host the leader key (anymore): resolve it again and retry. */
    NOT_LEADER,
    /** Delete: the group is gone and every member was given back. */
    DELETED,
    /** Delete: there is no such group. */
    NOT_FOUND
  }

  Outcome outcome();

  /**
   * Answer to {@link ClientRequest.Create}.
   *
   * @param group the group's state when the request ended ({@code null} unless CREATED or FAILED), from which
   *     the client learns the joined and refused members
   * @param message a human-readable explanation for outcomes other than CREATED
   */
  record Create(String requestId, Outcome outcome, GroupRecord group, String message) implements Reply {}

  /** Answer to {@link ClientRequest.Delete}. */
  record Delete(String requestId, Outcome outcome, String message) implements Reply {}
}
