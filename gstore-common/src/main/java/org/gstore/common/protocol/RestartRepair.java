package org.gstore.common.protocol;

/** Which of a leader's record changes a restarted leader would redo by itself, so that their writes may wait. */
final class RestartRepair {
  private RestartRepair() {
  }

  /**
   * Whether a leader that lost {@code next} and restarted from {@code logged} would reach {@code next}'s outcome
   * by itself, so that {@code next} may be deferred: what the step announces (CREATED, DELETED, a failed create)
   * stays true. From CREATING to ACTIVE with every member joined: each member's JOINING record is durable (it is
   * written before its JA), so the restarted leader's J gets the same JA from each, and the group becomes ACTIVE
   * with the same members. From DELETING to ENDED: every member's release is durable (written before its DA), so
   * the restarted leader's D gets a DA from each, and the group ends with the same failure, if any. Any other
   * change (a group with refused members, whose refused keys may since have become free; CREATING straight to
   * ENDED, which would come back as a create) is written before the step's effects leave.
   */
  static boolean reaches(GroupRecord logged, GroupRecord next) {
    if (logged == null || !logged.group().equals(next.group())) {
      return false;
    }
    return logged.phase() == GroupPhase.CREATING && next.phase() == GroupPhase.ACTIVE
            && next.members(MemberState.Status.JOINED).equals(next.members().keySet())
        || logged.phase() == GroupPhase.DELETING && next.phase() == GroupPhase.ENDED;
  }
}
