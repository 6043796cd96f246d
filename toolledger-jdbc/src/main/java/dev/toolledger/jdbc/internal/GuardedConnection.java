package dev.toolledger.jdbc.internal;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Wraps a transaction's connection so that code running inside the transaction (a tool) cannot end
 * it: commit, rollback of the whole transaction, auto-commit changes, isolation changes and close
 * are refused. Savepoints stay allowed, so a tool can recover from its own failed statement.
 *
 * <p>Every {@link SQLException} that the connection or a statement made from it throws is shown to
 * an observer before the tool sees it: a tool may catch it, wrap it or throw something else, but
 * the store still learns that its own connection met the error (a storage fault is the ledger's
 * failure, not the tool's). Statements hand back this guarded connection, never the raw one.
 */
public final class GuardedConnection implements InvocationHandler {
  private static final Set<String> REFUSED =
      Set.of("commit", "setAutoCommit", "close", "abort", "setTransactionIsolation", "setReadOnly");

  /*
   * The proxy classes' constructors, looked up once: Proxy.newProxyInstance checks access and looks
   * the class up in its cache on every call, and a transactional tool makes a connection, a
   * statement and a result set proxy per call (a JFR profile of keyed-create on PostgreSQL).
   */
  private static final Constructor<?> CONNECTION = proxyConstructor(Connection.class);
  private static final Constructor<?> STATEMENT = proxyConstructor(Statement.class);
  private static final Constructor<?> PREPARED = proxyConstructor(PreparedStatement.class);
  private static final Constructor<?> CALLABLE = proxyConstructor(CallableStatement.class);
  private static final Constructor<?> RESULT_SET = proxyConstructor(ResultSet.class);

  private static Constructor<?> proxyConstructor(Class<?> type) {
    try {
      Constructor<?> constructor =
          Proxy.newProxyInstance(
                  Connection.class.getClassLoader(), new Class<?>[] {type}, (p, m, a) -> null)
              .getClass()
              .getConstructor(InvocationHandler.class);
      constructor.setAccessible(true);
      return constructor;
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("no proxy constructor for " + type.getName(), e);
    }
  }

  private static Object proxy(Constructor<?> constructor, InvocationHandler handler) {
    try {
      return constructor.newInstance(handler);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot make a proxy", e);
    }
  }

  private final Connection delegate;
  private final Statements statements;
  private final Consumer<SQLException> observer;
  private Connection self;

  private GuardedConnection(
      Connection delegate, Statements statements, Consumer<SQLException> observer) {
    this.delegate = delegate;
    this.statements = statements;
    this.observer = observer;
  }

  public static Connection wrap(Connection connection) {
    return wrap(connection, Statements.plain(), e -> {});
  }

  /** Guards a connection whose {@code prepareStatement(String)} goes through {@code statements}. */
  public static Connection wrap(Connection connection, Statements statements) {
    return wrap(connection, statements, e -> {});
  }

  /** As {@link #wrap(Connection, Statements)}, showing every SQLException to {@code observer}. */
  public static Connection wrap(
      Connection connection, Statements statements, Consumer<SQLException> observer) {
    GuardedConnection handler = new GuardedConnection(connection, statements, observer);
    handler.self = (Connection) proxy(CONNECTION, handler);
    return handler.self;
  }

  @Override
  public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
    String name = method.getName();
    boolean wholeRollback = name.equals("rollback") && (args == null || args.length == 0);
    if (REFUSED.contains(name) || wholeRollback) {
      throw new UnsupportedOperationException(
          "Connection."
              + name
              + " is not allowed inside a ToolLedger transaction; the engine"
              + " commits or rolls back the effect together with its operation record");
    }
    if (name.equals("unwrap") || name.equals("isWrapperFor")) {
      throw new UnsupportedOperationException("the transaction's connection cannot be unwrapped");
    }
    refuseTransactionControl(name, args);
    Object result;
    try {
      if (name.equals("prepareStatement") && args != null && args.length == 1) {
        return new Borrowed(statements.lend(delegate, (String) args[0])).proxy;
      }
      result = method.invoke(delegate, args);
    } catch (InvocationTargetException e) {
      throw observed(e.getCause());
    } catch (SQLException e) {
      throw observed(e);
    }
    if (result instanceof Statement statement) {
      return observe(statement);
    }
    return result;
  }

  private Throwable observed(Throwable thrown) {
    if (thrown instanceof SQLException e) {
      observer.accept(e);
    }
    return thrown;
  }

  private Statement observe(Statement statement) {
    Constructor<?> type =
        statement instanceof CallableStatement
            ? CALLABLE
            : statement instanceof PreparedStatement ? PREPARED : STATEMENT;
    Statement[] proxy = new Statement[1];
    proxy[0] =
        (Statement)
            proxy(
                type,
                (ignored, method, args) -> {
                  if (method.getName().equals("getConnection")) {
                    return self;
                  }
                  Object result = call(statement, method, args);
                  return result instanceof ResultSet rows ? observe(rows, proxy[0]) : result;
                });
    return proxy[0];
  }

  /** A result set steps the statement: SQLite may report a failed write on the first next(). */
  private ResultSet observe(ResultSet rows, Statement statement) {
    return (ResultSet)
        proxy(
            RESULT_SET,
            (ignored, method, args) ->
                method.getName().equals("getStatement") ? statement : call(rows, method, args));
  }

  /**
   * A statement the store's {@link Statements} lent (on SQLite its kept statement), wrapped once:
   * closing it closes the result set it last opened and gives it back, to be reset, or dropped when
   * its work threw an SQLException (the driver may leave such a statement unusable). One proxy per
   * call instead of the cache's wrapper inside this guard's.
   */
  private final class Borrowed implements InvocationHandler {
    private final Statements.Lent lent;
    private final PreparedStatement proxy;
    // SQLite's driver keeps one result set per statement, so the last one is the only one open;
    // other drivers close their statement's result sets when it is given back (closed).
    private ResultSet rows;
    // execute() said rows are waiting and nobody asked for them: the statement is still stepping.
    private boolean rowsUnasked;
    private boolean closed;
    private boolean failed;

    Borrowed(Statements.Lent lent) {
      this.lent = lent;
      this.proxy = (PreparedStatement) GuardedConnection.proxy(PREPARED, this);
    }

    @Override
    public Object invoke(Object ignored, Method method, Object[] args) throws Throwable {
      switch (method.getName()) {
        case "close" -> {
          close();
          return null;
        }
        case "isClosed" -> {
          return closed;
        }
        case "getConnection" -> {
          return self;
        }
        case "unwrap", "isWrapperFor" ->
            throw new SQLException("the ledger transaction's statements cannot be unwrapped");
        default -> {}
      }
      if (closed) {
        throw observed(new SQLException("statement used after close"));
      }
      Object result = run(lent.statement(), method, args);
      if (result instanceof ResultSet opened) {
        rows = opened;
        rowsUnasked = false;
        return proxy(
            RESULT_SET,
            (rowsProxy, rowsMethod, rowsArgs) ->
                rowsMethod.getName().equals("getStatement")
                    ? proxy
                    : run(opened, rowsMethod, rowsArgs));
      }
      if (method.getName().equals("execute")) {
        rowsUnasked = Boolean.TRUE.equals(result);
      }
      return result;
    }

    /** SQLite may report a failed write only when a result set steps: that fails the statement. */
    private Object run(Object target, Method method, Object[] args) throws Throwable {
      try {
        return call(target, method, args);
      } catch (SQLException e) {
        failed = true;
        throw e;
      }
    }

    private void close() throws SQLException {
      if (closed) {
        return;
      }
      closed = true;
      try {
        if (rows != null) {
          rows.close();
        }
        if (rowsUnasked && !failed) {
          ResultSet waiting = lent.statement().getResultSet();
          if (waiting != null) {
            waiting.close();
          }
        }
      } catch (SQLException e) {
        failed = true;
        throw (SQLException) observed(e);
      } finally {
        lent.giveBack().giveBack(failed);
      }
    }
  }

  /**
   * Refuses SQL text (a statement prepared, executed or batched) that would begin, end, commit or
   * roll back the transaction: {@link #invoke} refuses the methods, this their SQL spelling.
   */
  private static void refuseTransactionControl(String method, Object[] args) {
    boolean carriesSql =
        method.startsWith("prepare")
            || method.startsWith("execute")
            || method.equals("addBatch")
            || method.equals("nativeSQL");
    if (carriesSql && args != null && args.length > 0 && args[0] instanceof String sql) {
      String word = TransactionControl.find(sql);
      if (word != null) {
        throw new UnsupportedOperationException(
            "a "
                + word
                + " statement is not allowed inside a ToolLedger transaction; the engine"
                + " commits or rolls back the effect together with its operation record");
      }
    }
  }

  private Object call(Object target, Method method, Object[] args) throws Throwable {
    if (method.getName().equals("unwrap") || method.getName().equals("isWrapperFor")) {
      throw new SQLException("the ledger transaction's statements cannot be unwrapped");
    }
    if (target instanceof Statement) {
      refuseTransactionControl(method.getName(), args);
    }
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw observed(e.getCause());
    }
  }
}
