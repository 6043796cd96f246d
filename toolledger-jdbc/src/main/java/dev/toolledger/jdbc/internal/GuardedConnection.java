package dev.toolledger.jdbc.internal;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.util.Set;

/**
 * Wraps a transaction's connection so that code running inside the transaction (a tool) cannot end
 * it: commit, rollback of the whole transaction, auto-commit changes, isolation changes and close
 * are refused. Savepoints stay allowed, so a tool can recover from its own failed statement.
 */
public final class GuardedConnection implements InvocationHandler {
  private static final Set<String> REFUSED =
      Set.of("commit", "setAutoCommit", "close", "abort", "setTransactionIsolation", "setReadOnly");

  private final Connection delegate;
  private final Statements statements;

  private GuardedConnection(Connection delegate, Statements statements) {
    this.delegate = delegate;
    this.statements = statements;
  }

  public static Connection wrap(Connection connection) {
    return wrap(connection, Statements.plain());
  }

  /** Guards a connection whose {@code prepareStatement(String)} goes through {@code statements}. */
  public static Connection wrap(Connection connection, Statements statements) {
    return (Connection)
        Proxy.newProxyInstance(
            Connection.class.getClassLoader(),
            new Class<?>[] {Connection.class},
            new GuardedConnection(connection, statements));
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
    if (name.equals("prepareStatement") && args != null && args.length == 1) {
      return statements.prepare(delegate, (String) args[0]);
    }
    try {
      return method.invoke(delegate, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
