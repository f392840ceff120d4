package org.gstore.coprocessor.server;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Set;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableBuilder;

/**
 * Counts the calls G-Store's server parts make to HBase through a {@link Table}: one per data call (a get, a put, a
 * batch, a check-and-mutate, a scanner opened, an endpoint call), whatever it carries. The count is what a
 * benchmark divides by its operations ({@code calls_per_op}): how many round trips to HBase a group's lifecycle
 * costs. A batch that spans regions on several servers is one call here and several RPCs in HBase; a scanner is
 * one call however many batches it fetches (G-Store scans only when a region opens).
 */
final class CountedTables {
  /** Table methods that carry no request: asking for them costs nothing. */
  private static final Set<String> LOCAL = Set.of("close", "getName", "getConfiguration", "getRegionLocator",
      "getRequestAttributes", "getOperationTimeout", "getRpcTimeout", "getReadRpcTimeout", "getWriteRpcTimeout",
      "toString", "hashCode", "equals");

  private CountedTables() {
  }

  /** {@code builder}, whose tables count each call they make into {@code calls}. */
  static TableBuilder counting(TableBuilder builder, Runnable calls) {
    return proxy(TableBuilder.class, builder, (self, method, args) -> {
      Object result = invoke(builder, method, args);
      if (result instanceof Table table) {
        return counting(table, calls);
      }
      return result == builder ? self : result;
    });
  }

  static Table counting(Table table, Runnable calls) {
    return proxy(Table.class, table, (self, method, args) -> {
      if (!LOCAL.contains(method.getName())) {
        calls.run();
      }
      return invoke(table, method, args);
    });
  }

  private static <T> T proxy(Class<T> type, T target, InvocationHandler handler) {
    return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, handler));
  }

  private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause(); // the call's own exception, as the caller would see it without this count
    }
  }
}
