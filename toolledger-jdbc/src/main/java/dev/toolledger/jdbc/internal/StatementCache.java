package dev.toolledger.jdbc.internal;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.sqlite.SQLiteConnection;
import org.sqlite.SQLiteConnectionConfig;

/**
 * Keeps each SQL text's prepared statement per physical connection, so that the hot path does not
 * compile the same SQL again on every call (SQLite's JDBC driver keeps no statement cache, and
 * compiling costs about as much as running a short statement).
 *
 * <p>Statements are prepared on the physical connection, beneath the pool, and handed out wrapped:
 * closing the wrapper closes its open result set and clears its parameters, leaving the statement
 * ready for the next caller of that connection. A pooled connection is used by one thread at a
 * time, so a connection's statements are never shared concurrently.
 */
final class StatementCache implements Statements {
  private final Map<Connection, Map<String, PreparedStatement>> byConnection =
      new ConcurrentHashMap<>();

  @Override
  public PreparedStatement prepare(Connection connection, String sql) throws SQLException {
    Map<String, PreparedStatement> statements = statementsOf(connection);
    PreparedStatement statement = kept(connection, statements, sql);
    return (PreparedStatement)
        Proxy.newProxyInstance(
            PreparedStatement.class.getClassLoader(),
            new Class<?>[] {PreparedStatement.class},
            new Reusable(statement, statements, sql));
  }

  /**
   * The kept statement itself, without the wrappers of {@link #prepare}: no proxy is made and no
   * call goes through reflection. What the wrappers do is done here around the work: a statement
   * whose work threw is closed and dropped (see {@link Reusable}), any other is reset for the next
   * caller of its connection.
   *
   * <p>The result set is closed here, in a try-with-resources, and closing it is what resets the
   * SQLite statement (so the connection holds no read snapshot between calls). The statement's
   * {@code getResultSet()} is not called to look for one left open: in the SQLite driver it does
   * not report an open result set but opens one again, reading every column's name through JNI,
   * which was about a quarter of a lookup's CPU (JFR; git history of docs/benchmarks.md).
   */
  @Override
  public <T> T query(Connection connection, String sql, Binder bind, Reader<T> read)
      throws SQLException {
    return onKept(
        connection,
        sql,
        bind,
        statement -> {
          try (ResultSet rows = statement.executeQuery()) {
            return read.read(rows);
          }
        });
  }

  /**
   * The kept statement itself, as {@link #query} runs it, for a statement that returns no rows.
   *
   * <p>The SQLite driver follows every {@code INSERT} it runs with a second statement, {@code
   * SELECT last_insert_rowid()}, compiled and stepped anew each time, so that {@code
   * getGeneratedKeys()} can answer later; that was about 5 µs of each new operation's CPU (an
   * async-profiler profile of keyed-create; git history of docs/benchmarks.md). The ledger never
   * asks for the keys of its own writes, so they run with that setting of the connection off, and
   * it is put back at once: a tool on the same connection still gets its generated keys.
   */
  @Override
  public int update(Connection connection, String sql, Binder bind) throws SQLException {
    return onKept(connection, sql, bind, StatementCache::withoutGeneratedKeys);
  }

  /** What {@link #query} and {@link #update} run on the kept statement once it is bound. */
  @FunctionalInterface
  private interface Work<T> {
    T run(PreparedStatement statement) throws SQLException;
  }

  /**
   * Binds and runs the kept statement for {@code sql}; resets it afterwards, or closes and drops it
   * when the work threw.
   */
  private <T> T onKept(Connection connection, String sql, Binder bind, Work<T> work)
      throws SQLException {
    Map<String, PreparedStatement> statements = statementsOf(connection);
    PreparedStatement statement = kept(connection, statements, sql);
    T result;
    try {
      bind.bind(statement);
      result = work.run(statement);
    } catch (SQLException | RuntimeException | Error e) {
      drop(statements, sql, statement, e);
      throw e;
    }
    statement.clearParameters();
    return result;
  }

  /**
   * The kept statement itself, lent to a caller that wraps it (see {@link Statements#lend}): given
   * back, it is reset as {@link Reusable} resets it, except that the caller has closed its result
   * sets already, so the statement's {@code getResultSet()} is not asked for one (in the SQLite
   * driver that opens one again, reading every column's name through JNI).
   */
  @Override
  public Lent lend(Connection connection, String sql) throws SQLException {
    Map<String, PreparedStatement> statements = statementsOf(connection);
    PreparedStatement statement = kept(connection, statements, sql);
    return new Lent(
        statement,
        failed -> {
          if (failed) {
            statements.remove(sql, statement);
            statement.close();
          } else {
            statement.clearParameters();
          }
        });
  }

  private static int withoutGeneratedKeys(PreparedStatement statement) throws SQLException {
    if (!(statement.getConnection() instanceof SQLiteConnection sqlite)) {
      return statement.executeUpdate();
    }
    SQLiteConnectionConfig config = sqlite.getConnectionConfig();
    boolean wanted = config.isGetGeneratedKeys();
    config.setGetGeneratedKeys(false);
    try {
      return statement.executeUpdate();
    } finally {
      config.setGetGeneratedKeys(wanted);
    }
  }

  /** A statement whose work threw is closed and dropped from the cache (see {@link Reusable}). */
  private static void drop(
      Map<String, PreparedStatement> statements,
      String sql,
      PreparedStatement statement,
      Throwable failure) {
    statements.remove(sql, statement);
    try {
      statement.close();
    } catch (SQLException suppressed) {
      failure.addSuppressed(suppressed);
    }
  }

  private Map<String, PreparedStatement> statementsOf(Connection connection) throws SQLException {
    Connection physical = connection.unwrap(Connection.class);
    Map<String, PreparedStatement> statements = byConnection.get(physical);
    if (statements == null) {
      // A connection we have not seen: drop what belonged to connections that are gone.
      byConnection.keySet().removeIf(StatementCache::closed);
      statements = new HashMap<>();
      byConnection.put(physical, statements);
    }
    return statements;
  }

  private static PreparedStatement kept(
      Connection connection, Map<String, PreparedStatement> statements, String sql)
      throws SQLException {
    PreparedStatement statement = statements.get(sql);
    if (statement == null || statement.isClosed()) {
      statement = connection.unwrap(Connection.class).prepareStatement(sql);
      statements.put(sql, statement);
    }
    return statement;
  }

  @Override
  public void forget(Connection connection) {
    try {
      Map<String, PreparedStatement> statements =
          byConnection.remove(connection.unwrap(Connection.class));
      if (statements != null) {
        for (PreparedStatement statement : statements.values()) {
          statement.close();
        }
      }
    } catch (SQLException e) {
      // The connection is being thrown away anyway.
    }
  }

  @Override
  public void clear() {
    byConnection.clear();
  }

  private static boolean closed(Connection connection) {
    try {
      return connection.isClosed();
    } catch (SQLException e) {
      return true;
    }
  }

  /**
   * A cached statement whose close is a reset. A statement that threw is not reset but closed and
   * dropped from the cache: after some errors (an I/O error, a write refused by a read-only file)
   * the driver leaves it in a state where every later use fails ("statement is not executing"),
   * which would turn one storage fault into failures of unrelated calls for as long as the
   * connection lives.
   */
  private static final class Reusable implements InvocationHandler {
    private final PreparedStatement statement;
    private final Map<String, PreparedStatement> cache;
    private final String sql;
    private boolean closed;
    private boolean failed;

    Reusable(PreparedStatement statement, Map<String, PreparedStatement> cache, String sql) {
      this.statement = statement;
      this.cache = cache;
      this.sql = sql;
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
      switch (method.getName()) {
        case "close" -> {
          if (!closed && failed) {
            closed = true;
            cache.remove(sql, statement);
            statement.close();
          } else if (!closed) {
            closed = true;
            ResultSet open = statement.getResultSet();
            if (open != null) {
              open.close();
            }
            statement.clearParameters();
          }
          return null;
        }
        case "isClosed" -> {
          return closed;
        }
        case "unwrap", "isWrapperFor" ->
            throw new SQLException("a cached statement cannot be unwrapped");
        default -> {
          if (closed) {
            throw new SQLException("statement used after close");
          }
          Object result = call(statement, method, args);
          if (result instanceof ResultSet rows) {
            // SQLite may report a failed write only when the result set steps.
            return Proxy.newProxyInstance(
                ResultSet.class.getClassLoader(),
                new Class<?>[] {ResultSet.class},
                (rowsProxy, rowsMethod, rowsArgs) ->
                    rowsMethod.getName().equals("getStatement")
                        ? proxy
                        : call(rows, rowsMethod, rowsArgs));
          }
          return result;
        }
      }
    }

    private Object call(Object target, Method method, Object[] args) throws Throwable {
      try {
        return method.invoke(target, args);
      } catch (InvocationTargetException e) {
        if (e.getCause() instanceof SQLException) {
          failed = true;
        }
        throw e.getCause();
      }
    }
  }
}
