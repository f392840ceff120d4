package org.gstore.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.hbase.ipc.CoprocessorRpcChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The HBase client on the class path is one G-Store's calls work with, or the client says why not. */
class HBaseClientCheckTest {
  /** What a relocated (shaded) protobuf channel looks like to code compiled against protobuf 2.5: another type. */
  interface RelocatedBlockingRpcChannel {
  }

  abstract static class ShadedCoprocessorRpcChannel implements RelocatedBlockingRpcChannel {
  }

  @Test
  void theUnshadedClientsChannelIsAccepted() {
    assertThatCode(() -> HBaseClientCheck.requireUnshadedChannel(CoprocessorRpcChannel.class))
        .doesNotThrowAnyException();
    assertThatCode(HBaseClientCheck::requireUsableClient).doesNotThrowAnyException();
  }

  @Test
  void aChannelOfARelocatedProtobufIsRefusedNamingTheArtifactToUse() {
    assertThatThrownBy(() -> HBaseClientCheck.requireUnshadedChannel(ShadedCoprocessorRpcChannel.class))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("hbase-shaded-client")
        .hasMessageContaining("org.apache.hbase:hbase-client");
  }

  @Test
  void twoCopiesOfHBasesClientClassesAreFound(@TempDir Path dir) throws Exception {
    String table = "org/apache/hadoop/hbase/client/Table.class";
    for (String jar : new String[] {"a", "b"}) {
      Path file = dir.resolve(jar).resolve(table);
      Files.createDirectories(file.getParent());
      Files.write(file, new byte[] {0});
    }
    try (URLClassLoader twoClients = new URLClassLoader(
        new URL[] {dir.resolve("a").toUri().toURL(), dir.resolve("b").toUri().toURL()}, null)) {
      assertThat(HBaseClientCheck.copiesOf(table, twoClients)).hasSize(2);
    }
  }
}
