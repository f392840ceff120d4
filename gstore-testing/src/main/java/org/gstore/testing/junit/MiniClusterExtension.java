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
import org.gstore.testing.GStoreMiniCluster;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * JUnit 5 extension behind {@link WithMiniCluster}: one {@link GStoreMiniCluster} per test JVM, kept in the root extension
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
    return type == GStoreMiniCluster.class || type == HBaseTestingUtility.class || type == Configuration.class
        || type == Connection.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    GStoreMiniCluster cluster = cluster(context, 0).cluster;
    Class<?> type = parameter.getParameter().getType();
    if (type == GStoreMiniCluster.class) {
      return cluster;
    }
    if (type == HBaseTestingUtility.class) {
      return cluster.getTestingUtility();
    }
    if (type == Configuration.class) {
      return cluster.getConfiguration();
    }
    return cluster.getConnection();
  }

  private static SharedCluster cluster(ExtensionContext context, int regionServers) {
    return context.getRoot().getStore(NAMESPACE)
        .getOrComputeIfAbsent(SharedCluster.class, k -> SharedCluster.start(Math.max(regionServers, 1)),
            SharedCluster.class);
  }

  /** The running cluster; closed by JUnit when the root store closes. */
  static final class SharedCluster implements ExtensionContext.Store.CloseableResource {
    final GStoreMiniCluster cluster;

    private SharedCluster(GStoreMiniCluster cluster) {
      this.cluster = cluster;
    }

    static SharedCluster start(int regionServers) {
      try {
        return new SharedCluster(GStoreMiniCluster.start(regionServers));
      } catch (Exception e) {
        throw new IllegalStateException("the G-Store mini cluster did not start", e);
      }
    }

    void ensureRegionServers(int wanted) {
      try {
        while (cluster.getTestingUtility().getMiniHBaseCluster().getLiveRegionServerThreads().size() < wanted) {
          cluster.getTestingUtility().getMiniHBaseCluster().startRegionServerAndWait(60_000);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public void close() throws Exception {
      cluster.close();
    }
  }
}
