package org.gstore.coprocessor;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;

/** A directory on the local disk for one simulated schedule, deleted with everything in it afterwards. */
public final class ScratchDirectory {
  /** What runs in the directory. */
  @FunctionalInterface
  public interface Body<T> {
    T run(org.apache.hadoop.fs.Path directory) throws Exception;
  }

  private ScratchDirectory() {}

  public static <T> T use(String prefix, Body<T> body) throws Exception {
    Path dir = Files.createTempDirectory(prefix);
    try {
      return body.run(new org.apache.hadoop.fs.Path(dir.toUri()));
    } finally {
      try (var files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }
}
