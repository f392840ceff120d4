/**
 * {@code gstore chaos}: the bank workload (transfers between accounts of several groups, auditors reading group
 * totals in transactions) against a running process cluster while region servers and the master are killed with
 * {@code kill -9} and restarted; then a check, with plain HBase reads, that money is conserved and every
 * acknowledged transfer was applied exactly once.
 */
package org.gstore.chaos;
