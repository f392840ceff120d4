package org.gstore.testing.junit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs a test class against the G-Store mini cluster shared by every test class of the JVM (HDFS, ZooKeeper,
 * master and region servers start once, in ~15-20 s, and stop after the last test). Test methods and constructors
 * may declare parameters of type {@code GStoreMiniCluster}, {@code HBaseTestingUtility}, {@code Configuration} or
 * {@code Connection}.
 *
 * <p>Tests share the cluster: each creates its own tables (unique names) and leaves others' alone.
 */
@Documented
@Inherited
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(MiniClusterExtension.class)
public @interface WithMiniCluster {
  /** At least this many live region servers; a class asking for more than are running starts the rest. */
  int regionServers() default 3;
}
