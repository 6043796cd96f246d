package dev.toolledger.jdbc;

import java.sql.SQLException;

/**
 * Carries a SQLException out of the SPI's unchecked methods; translated at the boundary ({@link
 * StorageFaults#translateWork}).
 */
final class WrappedSqlException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  WrappedSqlException(SQLException cause) {
    super(cause.getMessage(), cause);
  }
}
