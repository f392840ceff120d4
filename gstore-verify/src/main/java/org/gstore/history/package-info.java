/**
 * Histories of list-append transactions, and the checker that finds anomalies in them, after Jepsen's Elle
 * (Kingsbury and Alvaro, "Elle: Inferring Isolation Anomalies from Experimental Observations", VLDB 2020): each key
 * is a list that transactions read and append unique integers to, so every read reveals the order of the appends
 * before it. From those orders the checker infers write-write, write-read and read-write dependencies between
 * transactions (and real-time ones, for strict serializability), finds the cycles Adya's anomalies are made of
 * ({@code G0}, {@code G1c}, {@code G-single}, {@code G2}), and checks the rest directly: aborted and intermediate
 * reads ({@code G1a}, {@code G1b}), transactions that do not see their own appends, lost and duplicated appends.
 *
 * <p>{@link org.gstore.history.HistoryReader} reads a history (one JSON object per line, in the shape of Jepsen's);
 * {@link org.gstore.history.ListAppendChecker} checks it; {@link org.gstore.history.CheckReport} says what it found.
 */
package org.gstore.history;
