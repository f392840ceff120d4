package org.gstore.coprocessor.txn;

import java.io.IOException;
import org.apache.hadoop.hbase.client.TableDescriptor;

/** The tables that can hold group members, as the commit path checks writes against them. */
public interface MemberTables {
  /** The table's descriptor, or null if it cannot hold members ({@link #problemWith} says why). */
  TableDescriptor descriptor(String table) throws IOException;

  /** Why the table cannot hold members, or null if it can. */
  String problemWith(String table) throws IOException;
}
