package org.gstore.testing.junit;

import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.client.Connection;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * JUnit 5 extension behind {@link WithMiniCluster}: one mini cluster per test JVM, kept in the root extension
 * store so JUnit shuts it down once, after the last test class.
 */
public final class MiniClusterExtension implements BeforeAllCallback, ParameterResolver {
  private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(MiniClusterExtension.class);

  @Override
  public void beforeAll(ExtensionContext context) {
    int wanted = AnnotationSupport.findAnnotation(context.getRequiredTestClass(), WithMiniCluster.class)
        .map(WithMiniCluster::regionServers)
        .orElse(3);
    cluster(context, wanted).ensureRegionServers(wanted);
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    Class<?> type = parameter.getParameter().getType();
    return type == HBaseTestingUtility.class || type == Configuration.class || type == Connection.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    SharedCluster cluster = cluster(context, 0);
    Class<?> type = parameter.getParameter().getType();
    if (type == HBaseTestingUtility.class) {
      return cluster.util;
    }
    if (type == Configuration.class) {
      return cluster.util.getConfiguration();
    }
    return cluster.connection();
  }

  private static SharedCluster cluster(ExtensionContext context, int regionServers) {
    return context.getRoot().getStore(NAMESPACE)
        .getOrComputeIfAbsent(SharedCluster.class, k -> SharedCluster.start(Math.max(regionServers, 1)),
            SharedCluster.class);
  }

  /** The running cluster; closed by JUnit when the root store closes. */
  static final class SharedCluster implements ExtensionContext.Store.CloseableResource {
    final HBaseTestingUtility util;

    private SharedCluster(HBaseTestingUtility util) {
      this.util = util;
    }

    static SharedCluster start(int regionServers) {
      HBaseTestingUtility util = new HBaseTestingUtility();
      try {
        util.startMiniCluster(regionServers);
      } catch (Exception e) {
        throw new IllegalStateException("the HBase mini cluster did not start", e);
      }
      return new SharedCluster(util);
    }

    void ensureRegionServers(int wanted) {
      try {
        while (util.getMiniHBaseCluster().getLiveRegionServerThreads().size() < wanted) {
          util.getMiniHBaseCluster().startRegionServerAndWait(60_000);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    Connection connection() {
      try {
        return util.getConnection();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public void close() throws Exception {
      util.shutdownMiniCluster();
    }
  }
}
