package org.gstore.coprocessor.server;

import java.util.concurrent.ThreadFactory;
import org.apache.hadoop.hbase.ServerName;

/** G-Store's threads on a region server: daemons named after their role and their server, as thread dumps show. */
final class ServerThreads {
  private ServerThreads() {}

  static ThreadFactory named(String role, ServerName server) {
    String name = "gstore-" + role + "-" + server.getAddress();
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }
}
