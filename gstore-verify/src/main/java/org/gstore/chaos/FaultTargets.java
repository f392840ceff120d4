package org.gstore.chaos;

import java.util.Random;
import org.apache.hadoop.hbase.TableName;

/** What a fault aimed at one workload hits: the leader row of one of its groups, and where to split its table. */
interface FaultTargets {
  TableName table();

  /** The leader row of a group of the workload live now, forming or dissolving; null when it has none. */
  byte[] leaderRow(Random random);

  /** A row of the workload's table to split it at. */
  byte[] splitRow(Random random);
}
