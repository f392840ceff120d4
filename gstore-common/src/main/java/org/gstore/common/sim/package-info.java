/**
 * Support for the seeded simulations that prove the protocol and recovery code ({@link
 * org.gstore.common.sim.SeededRuns}: which schedules a run covers). No production code uses it.
 */
package org.gstore.common.sim;
