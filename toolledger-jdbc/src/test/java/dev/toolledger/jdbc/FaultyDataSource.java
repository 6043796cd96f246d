package dev.toolledger.jdbc;

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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;

/**
 * Wraps a real driver's data source and fails chosen JDBC calls: every statement execution, commit,
 * rollback and result-set step is numbered while counting is on, and the call with the chosen
 * number (once, or it and every later one) throws instead of reaching the database. The database
 * itself is real; only the call is refused, as a broken connection would refuse it.
 */
final class FaultyDataSource {
  private static final Set<String> COUNTED =
      Set.of(
          "execute",
          "executeQuery",
          "executeUpdate",
          "executeLargeUpdate",
          "executeBatch",
          "commit",
          "rollback",
          "next",
          "prepareStatement");

  enum Mode {
    ONCE,
    ALWAYS
  }

  private final AtomicInteger calls = new AtomicInteger();
  private volatile boolean counting;
  private volatile int failAt = Integer.MAX_VALUE;
  private volatile Mode mode = Mode.ONCE;
  private volatile boolean fired;

  UnaryOperator<DataSource> decorator() {
    return real -> proxy(DataSource.class, real);
  }

  /** Starts numbering calls from 1 and fails call {@code n} as {@code mode} says. */
  void arm(int n, Mode mode) {
    this.calls.set(0);
    this.failAt = n;
    this.mode = mode;
    this.fired = false;
    this.counting = true;
  }

  /** Stops counting and failing. */
  void disarm() {
    counting = false;
  }

  /** Whether the armed fault was hit at least once. */
  boolean fired() {
    return fired;
  }

  int calls() {
    return calls.get();
  }

  @SuppressWarnings("unchecked")
  private <T> T proxy(Class<T> type, T target) {
    return (T)
        Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, new Handler(target));
  }

  private final class Handler implements InvocationHandler {
    private final Object target;

    Handler(Object target) {
      this.target = target;
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
      if (counting && COUNTED.contains(method.getName())) {
        int n = calls.incrementAndGet();
        if (n == failAt || (mode == Mode.ALWAYS && n > failAt)) {
          fired = true;
          throw new SQLException(
              "injected fault at JDBC call " + n + " (" + method.getName() + ")", "58000");
        }
      }
      Object result;
      try {
        result = method.invoke(target, args);
      } catch (InvocationTargetException e) {
        throw e.getCause();
      }
      if (result instanceof CallableStatement callable) {
        return proxy(CallableStatement.class, callable);
      }
      if (result instanceof PreparedStatement prepared) {
        return proxy(PreparedStatement.class, prepared);
      }
      if (result instanceof Statement statement) {
        return proxy(Statement.class, statement);
      }
      if (result instanceof ResultSet resultSet) {
        return proxy(ResultSet.class, resultSet);
      }
      if (result instanceof Connection connection) {
        return proxy(Connection.class, connection);
      }
      return result;
    }
  }
}
