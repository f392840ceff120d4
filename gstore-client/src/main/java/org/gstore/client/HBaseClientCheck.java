package org.gstore.client;

import com.google.protobuf.BlockingRpcChannel;
import java.io.IOException;
import java.net.URL;
import java.util.Collections;
import java.util.List;
import org.apache.hadoop.hbase.ipc.CoprocessorRpcChannel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks, once per class loader, that the application runs the HBase client G-Store's calls are compiled against.
 *
 * <p>G-Store's client talks to its coprocessor endpoints through {@code Table.coprocessorService}, whose channel is
 * a protobuf 2.5 {@code com.google.protobuf.BlockingRpcChannel} in HBase's unshaded {@code hbase-client}. The shaded
 * artifacts ({@code hbase-shaded-client}, {@code hbase-shaded-mapreduce}) relocate protobuf, so the same channel
 * class implements a relocated interface and the first group call would fail with a {@code LinkageError} deep in a
 * stub. This check turns that into one clear error when the client is made.
 */
final class HBaseClientCheck {
  private static final Logger LOG = LoggerFactory.getLogger(HBaseClientCheck.class);
  private static final String CLIENT_CLASS = "org/apache/hadoop/hbase/client/Table.class";
  private static volatile boolean checked;

  private HBaseClientCheck() {
  }

  /** Throws {@link IllegalStateException} if the loaded HBase client cannot carry G-Store's calls. */
  static void requireUsableClient() {
    if (checked) {
      return;
    }
    requireUnshadedChannel(CoprocessorRpcChannel.class);
    List<URL> copies = copiesOf(CLIENT_CLASS, HBaseClientCheck.class.getClassLoader());
    if (copies.size() > 1) {
      LOG.warn("HBase's client classes are on the class path {} times ({}): G-Store needs the unshaded"
          + " hbase-client that gstore-client depends on; remove the others (hbase-shaded-client, an uber jar)",
          copies.size(), copies);
    }
    checked = true;
  }

  /** Refuses a coprocessor channel type that does not implement protobuf 2.5's unrelocated blocking channel. */
  static void requireUnshadedChannel(Class<?> channel) {
    if (!BlockingRpcChannel.class.isAssignableFrom(channel)) {
      throw new IllegalStateException("G-Store's client needs HBase's unshaded hbase-client (the one gstore-client"
          + " depends on): the loaded " + channel.getName() + " does not implement com.google.protobuf."
          + "BlockingRpcChannel, so protobuf is relocated, as in hbase-shaded-client or hbase-shaded-mapreduce."
          + " Depend on org.apache.hbase:hbase-client instead of the shaded artifact (docs/client.md,"
          + " \"Which HBase client\")");
    }
  }

  static List<URL> copiesOf(String resource, ClassLoader loader) {
    try {
      return loader == null ? List.of() : Collections.list(loader.getResources(resource));
    } catch (IOException e) {
      return List.of(); // the check is advice only: a class path that cannot be listed is not refused
    }
  }
}
