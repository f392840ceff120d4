package org.gstore.coprocessor.endpoint;

import com.google.protobuf.Service;
import java.util.List;
import org.apache.hadoop.hbase.regionserver.Region;
import org.gstore.coprocessor.server.GroupService;
import org.gstore.coprocessor.txn.LocalRows;
import org.gstore.coprocessor.txn.TransactionManager;

/**
 * The client RPC services one G-Store region serves: groups ({@link GroupEndpoint}) and transactions
 * ({@link TxnEndpoint}). HBase asks for them before the coprocessor starts, so they exist first and are attached
 * to the region's server once it has one; until then every call is refused.
 */
public final class Endpoints {
  private final GroupEndpoint groups = new GroupEndpoint();
  private final TxnEndpoint transactions = new TxnEndpoint();

  public List<Service> services() {
    return List.of(groups, transactions);
  }

  /** Serves {@code region}: each endpoint gets what it uses, and the group endpoint's check of leadership. */
  public void attach(Region region, GroupService server, TransactionManager txns, LocalRows localRows,
      Authorizer authorizer) {
    groups.attach(region, server, authorizer);
    transactions.attach(txns, localRows, groups::leadHere, authorizer);
  }
}
