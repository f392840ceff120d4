package org.gstore.testing.process;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One role's JVM: how to start it detached (its own session, output to its log, PID in its PID file), whether it is
 * alive, how much memory it holds, and how to signal it. A PID is trusted only while that process's command line
 * names this role and cluster directory, so a recycled PID is never signalled.
 */
final class NodeProcess {
  private final ClusterLayout layout;
  private final String role;

  NodeProcess(ClusterLayout layout, String role) {
    this.layout = layout;
    this.role = role;
  }

  String role() {
    return role;
  }

  Path log() {
    return layout.roleDir(role).resolve(role + ".log");
  }

  Path pidFile() {
    return layout.roleDir(role).resolve(role + ".pid");
  }

  /**
   * Starts the role's JVM running {@code mainClass args}; returns at once, with the process. While it starts, ask
   * the returned process whether it lives, not {@link #alive}: that one reads the PID's command line, which reads
   * empty while setsid execs the JVM, so a start that asked it then once took a live DataNode for a dead one (and
   * stopping the cluster then killed it).
   */
  Process start(List<String> jvmFlags, String mainClass, List<String> args) throws IOException {
    if (pid().isPresent()) {
      throw new IOException(role + " is already running (pid " + pid().get() + ")");
    }
    List<String> command = new ArrayList<>();
    if (new File("/usr/bin/setsid").canExecute()) {
      command.add("/usr/bin/setsid"); // its own session: a Ctrl-C on the launcher's terminal does not reach it
    }
    command.addAll(command(jvmFlags, mainClass, args));
    appendToLog("starting " + role + ": " + String.join(" ", command));
    Process process = new ProcessBuilder(command)
        .directory(layout.roleDir(role).toFile())
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log().toFile()))
        .redirectErrorStream(true)
        .start();
    Files.writeString(pidFile(), process.pid() + "\n");
    process.onExit().thenAccept(this::logExit);
    return process;
  }

  /**
   * Notes in the role's log how its JVM ended (128 + n for signal n), while the JVM that started it lives: a process
   * that dies before it logs anything (the kernel's OOM killer, a signal from outside) otherwise leaves no trace.
   */
  private void logExit(Process process) {
    try {
      appendToLog(role + " (pid " + process.pid() + ") exited with code " + process.exitValue());
    } catch (IOException e) {
      // the cluster directory is gone: nothing left to explain
    }
  }

  private void appendToLog(String event) throws IOException {
    Files.writeString(log(), "=== " + Instant.now() + " " + event + "\n", StandardCharsets.UTF_8,
        StandardOpenOption.CREATE, StandardOpenOption.APPEND);
  }

  /** The command line that runs the role's JVM in the foreground. */
  List<String> command(List<String> jvmFlags, String mainClass, List<String> args) {
    List<String> command = new ArrayList<>();
    command.add(ProcessHandle.current().info().command().orElse("java"));
    command.add(marker());
    command.addAll(jvmFlags);
    command.add("-cp");
    command.add(classpath());
    command.add(mainClass);
    command.addAll(args);
    return command;
  }

  /** The role's own conf directory first, then the distribution; region servers and the master get G-Store. */
  private String classpath() {
    Path home = layout.home();
    List<String> entries = new ArrayList<>(List.of(
        layout.roleDir(role).resolve("conf").toString(),
        home.resolve("share").toString(),
        home.resolve("lib").resolve("*").toString()));
    if (role.equals("master") || ClusterLayout.isRegionServer(role)) {
      entries.add(home.resolve("lib").resolve("coprocessor").resolve("*").toString());
    }
    return String.join(File.pathSeparator, entries);
  }

  /** A system property that names the role and the cluster: how a PID is checked and leftovers are found. */
  private String marker() {
    return "-Dgstore.cluster.role=" + role + "@" + layout.dir();
  }

  /** The PID of this role's live JVM, if there is one. */
  Optional<Long> pid() {
    try {
      if (!Files.exists(pidFile())) {
        return Optional.empty();
      }
      long pid = Long.parseLong(Files.readString(pidFile()).trim());
      return handle(pid).map(ProcessHandle::pid);
    } catch (IOException | NumberFormatException e) {
      return Optional.empty();
    }
  }

  private Optional<ProcessHandle> handle(long pid) {
    Optional<ProcessHandle> handle = ProcessHandle.of(pid).filter(ProcessHandle::isAlive);
    if (handle.isEmpty()) {
      return Optional.empty();
    }
    try { // the PID may have been recycled: trust it only if the command line is ours
      byte[] cmdline = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline"));
      String args = new String(cmdline, StandardCharsets.UTF_8).replace('\0', ' ');
      return args.contains(marker() + " ") ? handle : Optional.empty();
    } catch (IOException gone) {
      return Optional.empty();
    }
  }

  boolean alive() {
    return pid().isPresent();
  }

  /** Resident memory in KiB, or -1 if not running. */
  long rssKib() {
    Optional<Long> pid = pid();
    if (pid.isEmpty()) {
      return -1;
    }
    try {
      for (String line : Files.readAllLines(Path.of("/proc", pid.get().toString(), "status"))) {
        if (line.startsWith("VmRSS:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", ""));
        }
      }
    } catch (IOException | NumberFormatException e) {
      return -1;
    }
    return -1;
  }

  /** Sends {@code signal} (a number, as kill(1) takes it); false if the role was not running. */
  boolean signal(int signal) throws IOException {
    Optional<Long> pid = pid();
    if (pid.isEmpty()) {
      return false;
    }
    try {
      Process kill = new ProcessBuilder("kill", "-" + signal, pid.get().toString()).inheritIO().start();
      if (kill.waitFor() != 0) {
        throw new IOException("kill -" + signal + " " + pid.get() + " failed");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while signalling " + role, e);
    }
    return true;
  }

  /** Waits up to {@code timeout} for the process to be gone; true if it is. */
  boolean awaitExit(Duration timeout) {
    Optional<ProcessHandle> handle = pid().flatMap(ProcessHandle::of);
    if (handle.isEmpty()) {
      return true;
    }
    try {
      handle.get().onExit().get(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
      return true;
    } catch (java.util.concurrent.TimeoutException stillRunning) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return !alive();
    } catch (java.util.concurrent.ExecutionException e) {
      return !alive();
    }
  }

  /** Stops the process: {@code SIGTERM}, then {@code SIGKILL} if it is still there after {@code grace}. */
  void stop(Duration grace) throws IOException {
    if (signal(15) && !awaitExit(grace)) {
      signal(9);
      awaitExit(Duration.ofSeconds(10));
    }
  }

  /** The last {@code lines} lines of the role's log, to explain a failed start. */
  String logTail(int lines) {
    try {
      List<String> all = Files.readAllLines(log(), StandardCharsets.UTF_8);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }
}
