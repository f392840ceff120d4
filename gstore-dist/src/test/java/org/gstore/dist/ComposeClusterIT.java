package org.gstore.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.gstore.cli.GStore;
import org.gstore.testing.process.ClusterProbe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * docker/compose.yml exactly as a user runs it: {@code up -d}, the demo through docker/hbase-site.xml, a region
 * server container killed with SIGKILL, the demo again, {@code down}. Runs in the 'docker' profile; needs
 * {@code docker compose} or {@code docker-compose} (.ci/run installs the latter).
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class ComposeClusterIT {
  private static final Path DOCKER = Path.of("..", "docker").toAbsolutePath().normalize();
  private static List<String> compose;

  @BeforeAll
  static void up() throws Exception {
    compose = composeCommand();
    run("up", "-d");
    Configuration conf = HBaseConfiguration.create();
    conf.addResource(new org.apache.hadoop.fs.Path(DOCKER.resolve("hbase-site.xml").toUri()));
    ClusterProbe.awaitServing(conf, 3, Duration.ofMinutes(4), () -> { });
  }

  @AfterAll
  static void down() throws Exception {
    if (compose != null) {
      run("down", "--volumes");
    }
  }

  @Test
  void theDemoAccountsForEveryChipBeforeAndAfterARegionServerIsKilled() throws Exception {
    assertThat(demo()).as("demo exit code").isZero();
    run("kill", "-s", "SIGKILL", "rs1");
    assertThat(demo()).as("demo exit code with rs1 killed").isZero();
  }

  private static int demo() throws Exception {
    return GStore.run(new String[] {"demo", "--conf", DOCKER.resolve("hbase-site.xml").toString(), "--players",
        "400", "--games", "16", "--dealers", "4", "--bets", "20"});
  }

  /** {@code docker compose} (v2) if the Docker CLI has it, else {@code docker-compose} (v1, Debian's package). */
  private static List<String> composeCommand() throws InterruptedException {
    for (List<String> candidate : List.of(List.of("docker", "compose"), List.of("docker-compose"))) {
      List<String> version = new ArrayList<>(candidate);
      version.add("version");
      try {
        if (new ProcessBuilder(version).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start().waitFor() == 0) {
          return candidate;
        }
      } catch (IOException notInstalled) {
        // try the next
      }
    }
    return fail("neither 'docker compose' nor 'docker-compose' is installed (apt-get install docker-compose)");
  }

  private static void run(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(compose);
    command.addAll(List.of("-p", "gstore-it", "-f", DOCKER.resolve("compose.yml").toString()));
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).inheritIO().start();
    assertThat(p.waitFor()).as(String.join(" ", command)).isZero();
  }
}
