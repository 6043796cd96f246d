package dev.toolledger.jdbc;

import dev.toolledger.core.store.StoreException;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Locale;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * What a SQLite ledger needs of connections that the application's pool opened: a busy timeout on
 * each (SQLite's default is to fail at once when another connection writes) and the file in WAL
 * mode (readers never wait for the writer). {@code busy_timeout} is a setting of the connection, so
 * it is set on every connection taken; it costs no I/O.
 */
final class SqliteSessions {
  private SqliteSessions() {}

  static DataSource withBusyTimeout(DataSource dataSource, Duration busyTimeout) {
    return new BusyTimeout(dataSource, busyTimeout.toMillis());
  }

  /** Switches the file to WAL (a setting of the file, kept across connections and restarts). */
  static void useWal(DataSource dataSource) {
    try (Connection connection = dataSource.getConnection();
        Statement st = connection.createStatement();
        ResultSet rs = st.executeQuery("PRAGMA journal_mode = WAL")) {
      String mode = rs.next() ? rs.getString(1) : "";
      if (!"wal".equals(mode.toLowerCase(Locale.ROOT))) {
        throw new StoreException(
            "the application's SQLite database stays in journal mode '"
                + mode
                + "'; the ledger needs WAL (an in-memory database cannot hold a ledger)");
      }
    } catch (SQLException e) {
      throw new StoreException(
          "cannot switch the application's SQLite database to WAL (SQLState "
              + e.getSQLState()
              + ")",
          e);
    }
  }

  private static final class BusyTimeout implements DataSource {
    private final DataSource delegate;
    private final String pragma;

    BusyTimeout(DataSource delegate, long millis) {
      this.delegate = delegate;
      this.pragma = "PRAGMA busy_timeout = " + millis;
    }

    @Override
    public Connection getConnection() throws SQLException {
      return prepared(delegate.getConnection());
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
      return prepared(delegate.getConnection(username, password));
    }

    private Connection prepared(Connection connection) throws SQLException {
      try (Statement st = connection.createStatement()) {
        st.execute(pragma);
        return connection;
      } catch (SQLException | RuntimeException e) {
        try {
          connection.close();
        } catch (SQLException suppressed) {
          e.addSuppressed(suppressed);
        }
        throw e;
      }
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
      return delegate.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
      delegate.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
      delegate.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
      return delegate.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
      return delegate.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
      return iface.isInstance(delegate) ? iface.cast(delegate) : delegate.unwrap(iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
      return iface.isInstance(delegate) || delegate.isWrapperFor(iface);
    }
  }
}
