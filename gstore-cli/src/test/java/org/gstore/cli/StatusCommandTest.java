package org.gstore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * {@code gstore status} inspects a cluster: without {@code --conf} it must refuse, not report on a fresh embedded
 * cluster (an operator's go/no-go check would then always pass).
 */
class StatusCommandTest {
  @Test
  void statusWithoutAClusterToInspectIsRefused() throws Exception {
    PrintStream original = System.err;
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    int code;
    try {
      code = GStore.run(new String[] {"status"});
    } finally {
      System.setErr(original);
    }
    assertThat(code).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("gstore status needs --conf hbase-site.xml");
  }
}
