package dev.toolledger.client.journal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.protocol.StoredResponse;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;

/**
 * The default {@link ActionJournal}: one SQLite file in WAL mode with {@code synchronous=FULL}, so
 * a recorded action survives a process kill and a power loss.
 *
 * <p>Keys are 24 bytes (192 bits) from {@link SecureRandom}, base64url-encoded without padding: 32
 * characters of {@code [A-Za-z0-9_-]}, valid as an {@code Idempotency-Key} and in a URL path as
 * they are. (Not a UUIDv4: that carries only 122 random bits.)
 *
 * <p>Every write is an explicit {@code BEGIN IMMEDIATE} ... {@code COMMIT} on a connection the
 * driver keeps in auto-commit mode. The driver's own transactions ({@code setAutoCommit(false)})
 * are not used on purpose: the driver marks the connection as in a transaction before its {@code
 * BEGIN} runs, so a {@code BEGIN} that fails with SQLITE_BUSY would leave it believing in a
 * transaction that SQLite does not have (see toolledger-jdbc's {@code SqliteSupport}). {@code
 * IMMEDIATE} takes the write lock before the first read, so a writer never fails half-way because
 * another process wrote first.
 *
 * <p>One connection serves the process, guarded by a lock; other processes may open the same file
 * (the busy timeout covers their writes). The file is created readable by its owner only where the
 * file system supports POSIX permissions: it holds parameters and responses.
 */
public final class SqliteActionJournal implements ActionJournal {
  /** Default time a write waits for another process's write lock: 5 seconds. */
  public static final Duration DEFAULT_BUSY_TIMEOUT = Duration.ofSeconds(5);

  static final int KEY_BYTES = 24;
  private static final int MAX_KEY_COLLISIONS = 3;
  private static final String COLUMNS =
      "op_key, workflow_id, step_id, tool, parameters, status, response_status, response_body,"
          + " problem, recorded_at, updated_at";
  private static final String UNFINISHED = "('PENDING', 'UNKNOWN')";

  private final Path path;
  private final SQLiteConfig config;
  private final Clock clock;
  private final Supplier<String> keys;
  private final ReentrantLock lock = new ReentrantLock();
  private Connection connection;
  private boolean closed;

  private SqliteActionJournal(Builder b) {
    this.path = b.path.toAbsolutePath();
    this.clock = b.clock;
    this.keys = b.keys;
    this.config = new SQLiteConfig();
    config.setJournalMode(SQLiteConfig.JournalMode.WAL);
    config.setSynchronous(SQLiteConfig.SynchronousMode.FULL);
    config.setBusyTimeout((int) b.busyTimeout.toMillis());
  }

  public static Builder builder(Path file) {
    return new Builder(file);
  }

  /** The journal file. */
  public Path path() {
    return path;
  }

  private void open() {
    createOwnerOnly(path);
    try {
      connection = config.createConnection("jdbc:sqlite:" + path);
      verifyPragmas(connection);
      JournalSchema.migrate(connection);
    } catch (SQLException e) {
      closeQuietly();
      throw new JournalException(
          "cannot open the action journal " + path + " (" + describe(e) + ")", e);
    } catch (RuntimeException e) {
      closeQuietly();
      throw e;
    }
  }

  private static void createOwnerOnly(Path path) {
    if (Files.exists(path)
        || !FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
      return;
    }
    try {
      Files.createFile(
          path, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    } catch (FileAlreadyExistsException e) {
      // Another process created it first; fine.
    } catch (IOException e) {
      throw new JournalException("cannot create the action journal " + path + ": " + e, e);
    }
  }

  /** WAL and FULL are what make a recorded key durable; refuse to run without them. */
  private static void verifyPragmas(Connection connection) throws SQLException {
    try (Statement st = connection.createStatement()) {
      try (ResultSet rs = st.executeQuery("PRAGMA journal_mode")) {
        rs.next();
        String mode = rs.getString(1);
        if (!"wal".equalsIgnoreCase(mode)) {
          throw new JournalException(
              "the action journal must run in WAL mode, but SQLite reports '" + mode + "'");
        }
      }
      try (ResultSet rs = st.executeQuery("PRAGMA synchronous")) {
        rs.next();
        if (rs.getInt(1) != 2) {
          throw new JournalException(
              "the action journal must run with synchronous=FULL (2), but SQLite reports "
                  + rs.getInt(1));
        }
      }
    }
  }

  @Override
  public Recorded record(Action action) {
    Objects.requireNonNull(action, "action");
    String parameters = Json.write(action.parameters());
    for (int collisions = 0; ; collisions++) {
      String key = keys.get();
      long now = clock.millis();
      Optional<JournalEntry> existing;
      try {
        existing =
            write(
                c -> {
                  try (PreparedStatement ps =
                      c.prepareStatement(
                          "INSERT INTO tl_journal (op_key, workflow_id, step_id, tool, parameters,"
                              + " status, recorded_at, updated_at)"
                              + " VALUES (?, ?, ?, ?, ?, 'PENDING', ?, ?)"
                              + " ON CONFLICT (workflow_id, step_id) DO NOTHING")) {
                    ps.setString(1, key);
                    ps.setString(2, action.workflowId());
                    ps.setString(3, action.stepId());
                    ps.setString(4, action.tool());
                    ps.setString(5, parameters);
                    ps.setLong(6, now);
                    ps.setLong(7, now);
                    if (ps.executeUpdate() == 1) {
                      return Optional.empty();
                    }
                  }
                  return selectStep(c, action.workflowId(), action.stepId());
                },
                "recording an action");
      } catch (JournalException e) {
        if (isUniqueViolation(e.getCause()) && collisions < MAX_KEY_COLLISIONS) {
          continue; // a minted key already exists: astronomically unlikely, but mint another
        }
        throw e;
      }
      if (existing.isEmpty()) {
        Instant at = Instant.ofEpochMilli(now);
        return new Recorded(
            new JournalEntry(
                OperationKey.of(key),
                action,
                ActionStatus.PENDING,
                Optional.empty(),
                Optional.empty(),
                at,
                at),
            true);
      }
      JournalEntry recorded = existing.get();
      if (!recorded.action().sameIntentAs(action)) {
        throw new ActionConflictException(recorded);
      }
      return new Recorded(recorded, false);
    }
  }

  @Override
  public Optional<JournalEntry> find(String workflowId, String stepId) {
    return read(c -> selectStep(c, workflowId, stepId), "reading an action");
  }

  @Override
  public Optional<JournalEntry> find(OperationKey key) {
    return read(c -> selectKey(c, key.value()), "reading an action");
  }

  @Override
  public List<JournalEntry> entries(String workflowId) {
    return read(
        c ->
            selectList(
                c,
                "SELECT " + COLUMNS + " FROM tl_journal WHERE workflow_id = ? ORDER BY seq",
                workflowId),
        "listing a workflow");
  }

  @Override
  public List<JournalEntry> unfinished(String workflowId) {
    return read(
        c ->
            selectList(
                c,
                "SELECT "
                    + COLUMNS
                    + " FROM tl_journal WHERE workflow_id = ? AND status IN "
                    + UNFINISHED
                    + " ORDER BY seq",
                workflowId),
        "listing unfinished actions");
  }

  @Override
  public List<String> workflowsWithUnfinishedActions() {
    return read(
        c -> {
          List<String> workflows = new ArrayList<>();
          try (PreparedStatement ps =
                  c.prepareStatement(
                      "SELECT workflow_id FROM tl_journal WHERE status IN "
                          + UNFINISHED
                          + " GROUP BY workflow_id ORDER BY MIN(seq)");
              ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
              workflows.add(rs.getString(1));
            }
          }
          return workflows;
        },
        "listing unfinished workflows");
  }

  @Override
  public JournalEntry markCompleted(OperationKey key, StoredResponse response) {
    Objects.requireNonNull(response, "response");
    return mark(
        key,
        "status = 'COMPLETED', response_status = ?, response_body = ?",
        ps -> {
          ps.setInt(1, response.status());
          ps.setString(2, response.body());
          return 3;
        });
  }

  @Override
  public JournalEntry markRejected(OperationKey key, JsonNode problem) {
    Objects.requireNonNull(problem, "problem");
    String document = Json.write(problem);
    return mark(
        key,
        "status = 'REJECTED', problem = ?",
        ps -> {
          ps.setString(1, document);
          return 2;
        });
  }

  @Override
  public JournalEntry markUnknown(OperationKey key) {
    return mark(key, "status = 'UNKNOWN'", ps -> 1);
  }

  private JournalEntry mark(OperationKey key, String assignments, Binder binder) {
    Objects.requireNonNull(key, "key");
    long now = clock.millis();
    return write(
        c -> {
          try (PreparedStatement ps =
              c.prepareStatement(
                  "UPDATE tl_journal SET "
                      + assignments
                      + ", updated_at = ? WHERE op_key = ? AND status IN "
                      + UNFINISHED)) {
            int next = binder.bind(ps);
            ps.setLong(next, now);
            ps.setString(next + 1, key.value());
            ps.executeUpdate();
          }
          return selectKey(c, key.value())
              .orElseThrow(
                  () ->
                      new JournalException(
                          // Not the key, nor a hash of it: the caller holds the key.
                          "no action with this key is in the journal"));
        },
        "updating an action's status");
  }

  @Override
  public void close() {
    lock.lock();
    try {
      closed = true;
      closeQuietly();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public String toString() {
    return "SqliteActionJournal[" + path + "]";
  }

  // --- plumbing -------------------------------------------------------------------------------

  @FunctionalInterface
  private interface Work<T> {
    T run(Connection connection) throws SQLException;
  }

  @FunctionalInterface
  private interface Binder {
    /** Binds leading parameters and returns the index of the next one. */
    int bind(PreparedStatement ps) throws SQLException;
  }

  private <T> T read(Work<T> work, String doing) {
    lock.lock();
    try {
      return work.run(connection());
    } catch (SQLException e) {
      throw new JournalException(
          "the action journal failed while " + doing + " (" + describe(e) + ")", e);
    } finally {
      lock.unlock();
    }
  }

  private <T> T write(Work<T> work, String doing) {
    lock.lock();
    try {
      Connection c;
      try {
        c = connection();
        try (Statement st = c.createStatement()) {
          st.execute("BEGIN IMMEDIATE");
        }
      } catch (SQLException e) {
        // A failed BEGIN leaves no transaction behind; the connection is clean.
        throw new JournalException(
            "the action journal could not start a write while " + doing + " (" + describe(e) + ")",
            e);
      }
      try {
        T result = work.run(c);
        try (Statement st = c.createStatement()) {
          st.execute("COMMIT");
        }
        return result;
      } catch (SQLException | RuntimeException e) {
        rollback(c);
        if (e instanceof RuntimeException runtime) {
          throw runtime;
        }
        SQLException sql = (SQLException) e;
        throw new JournalException(
            "the action journal failed while " + doing + " (" + describe(sql) + ")", sql);
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Rolls back; if that fails the transaction's state is unknown, so the connection is closed
   * (which makes SQLite roll back) and the next call opens a new one.
   */
  private void rollback(Connection c) {
    try (Statement st = c.createStatement()) {
      st.execute("ROLLBACK");
    } catch (SQLException e) {
      closeQuietly();
    }
  }

  private Connection connection() throws SQLException {
    if (closed) {
      throw new JournalException("the action journal " + path + " is closed");
    }
    if (connection == null) {
      connection = config.createConnection("jdbc:sqlite:" + path);
    }
    return connection;
  }

  private void closeQuietly() {
    if (connection != null) {
      try {
        connection.close();
      } catch (SQLException ignored) {
        // closing anyway
      }
      connection = null;
    }
  }

  /**
   * SQLITE_CONSTRAINT_UNIQUE (2067). The driver's {@code getErrorCode()} reports only the primary
   * code (19, any constraint); the extended code is on {@link SQLiteException#getResultCode()}.
   */
  private static boolean isUniqueViolation(Throwable e) {
    return e instanceof SQLiteException sqlite
        && sqlite.getResultCode() == SQLiteErrorCode.SQLITE_CONSTRAINT_UNIQUE;
  }

  private static String describe(SQLException e) {
    return "SQLState " + e.getSQLState() + ", code " + e.getErrorCode();
  }

  private static Optional<JournalEntry> selectStep(Connection c, String workflowId, String stepId)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT " + COLUMNS + " FROM tl_journal WHERE workflow_id = ? AND step_id = ?")) {
      ps.setString(1, workflowId);
      ps.setString(2, stepId);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(readEntry(rs)) : Optional.empty();
      }
    }
  }

  private static Optional<JournalEntry> selectKey(Connection c, String key) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("SELECT " + COLUMNS + " FROM tl_journal WHERE op_key = ?")) {
      ps.setString(1, key);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(readEntry(rs)) : Optional.empty();
      }
    }
  }

  private static List<JournalEntry> selectList(Connection c, String sql, String workflowId)
      throws SQLException {
    List<JournalEntry> entries = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, workflowId);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          entries.add(readEntry(rs));
        }
      }
    }
    return entries;
  }

  private static JournalEntry readEntry(ResultSet rs) throws SQLException {
    ActionStatus status = ActionStatus.valueOf(rs.getString("status"));
    Optional<StoredResponse> response = Optional.empty();
    if (status == ActionStatus.COMPLETED) {
      response =
          Optional.of(
              new StoredResponse(rs.getInt("response_status"), rs.getString("response_body")));
    }
    Optional<JsonNode> problem = Optional.empty();
    if (status == ActionStatus.REJECTED) {
      problem = Optional.of(Json.parse(rs.getString("problem")));
    }
    return new JournalEntry(
        OperationKey.of(rs.getString("op_key")),
        new Action(
            rs.getString("workflow_id"),
            rs.getString("step_id"),
            rs.getString("tool"),
            Json.parse(rs.getString("parameters"))),
        status,
        response,
        problem,
        Instant.ofEpochMilli(rs.getLong("recorded_at")),
        Instant.ofEpochMilli(rs.getLong("updated_at")));
  }

  /** A new key: 24 random bytes from {@link SecureRandom}, base64url without padding. */
  static Supplier<String> secureKeys() {
    SecureRandom random = new SecureRandom();
    Base64.Encoder encoder = Base64.getUrlEncoder().withoutPadding();
    return () -> {
      byte[] bytes = new byte[KEY_BYTES];
      random.nextBytes(bytes);
      return encoder.encodeToString(bytes);
    };
  }

  /** How to open a journal; {@link #open()} creates the file and its schema if needed. */
  public static final class Builder {
    private final Path path;
    private Duration busyTimeout = DEFAULT_BUSY_TIMEOUT;
    private Clock clock = Clock.systemUTC();
    private Supplier<String> keys = secureKeys();

    private Builder(Path path) {
      this.path = path;
    }

    /**
     * How long a write waits while another process holds the file's write lock. Default 5 seconds.
     */
    public Builder busyTimeout(Duration busyTimeout) {
      this.busyTimeout = busyTimeout;
      return this;
    }

    /** Source of the recorded and updated timestamps. Default the system UTC clock. */
    public Builder clock(Clock clock) {
      this.clock = clock;
      return this;
    }

    /** For tests of key collisions only. */
    Builder keys(Supplier<String> keys) {
      this.keys = keys;
      return this;
    }

    public SqliteActionJournal open() {
      Objects.requireNonNull(path, "path must not be null");
      if (busyTimeout == null || busyTimeout.isNegative()) {
        throw new IllegalArgumentException("busyTimeout must be zero or positive");
      }
      if (busyTimeout.toMillis() > Integer.MAX_VALUE) {
        throw new IllegalArgumentException("busyTimeout is too long");
      }
      Objects.requireNonNull(clock, "clock must not be null");
      Path parent = path.toAbsolutePath().getParent();
      if (parent != null && !Files.isDirectory(parent)) {
        throw new IllegalArgumentException(
            "the journal's directory " + parent + " does not exist; create it first");
      }
      SqliteActionJournal journal = new SqliteActionJournal(this);
      journal.open();
      return journal;
    }
  }
}
