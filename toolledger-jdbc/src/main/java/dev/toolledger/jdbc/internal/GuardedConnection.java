package dev.toolledger.jdbc.internal;

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
    handler.self =
        (Connection)
            Proxy.newProxyInstance(
                Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, handler);
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
    Object result;
    try {
      if (name.equals("prepareStatement") && args != null && args.length == 1) {
        result = statements.prepare(delegate, (String) args[0]);
      } else {
        result = method.invoke(delegate, args);
      }
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
    Class<?> type =
        statement instanceof CallableStatement
            ? CallableStatement.class
            : statement instanceof PreparedStatement ? PreparedStatement.class : Statement.class;
    Statement[] proxy = new Statement[1];
    proxy[0] =
        (Statement)
            Proxy.newProxyInstance(
                Connection.class.getClassLoader(),
                new Class<?>[] {type},
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
        Proxy.newProxyInstance(
            Connection.class.getClassLoader(),
            new Class<?>[] {ResultSet.class},
            (ignored, method, args) ->
                method.getName().equals("getStatement") ? statement : call(rows, method, args));
  }

  private Object call(Object target, Method method, Object[] args) throws Throwable {
    if (method.getName().equals("unwrap") || method.getName().equals("isWrapperFor")) {
      throw new SQLException("the ledger transaction's statements cannot be unwrapped");
    }
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw observed(e.getCause());
    }
  }
}
