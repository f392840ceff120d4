package org.gstore.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.gstore.bench.ProfileSteps;

/** {@code gstore profile FILE.jfr [--top N]}: where a flight recording's CPU went, in G-Store's terms. */
final class ProfileCommand {
  private ProfileCommand() {}

  static int run(String[] argv) throws IOException {
    if (argv.length < 2 || argv[1].startsWith("--")) {
      throw CommandLine.fail("usage: gstore profile FILE.jfr [--top 25]");
    }
    String[] flags = new String[argv.length - 1];
    flags[0] = "profile";
    System.arraycopy(argv, 2, flags, 1, flags.length - 1);
    Map<String, String> o = CommandLine.options(flags);
    CommandLine.allow(o, "--top");
    Path file = Path.of(argv[1]);
    if (!Files.isRegularFile(file)) {
      throw CommandLine.fail("no such file: " + file);
    }
    ProfileSteps.of(file).print(System.out, CommandLine.positive(o, "--top", 25));
    return 0;
  }
}
