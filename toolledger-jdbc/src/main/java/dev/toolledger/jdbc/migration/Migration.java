package dev.toolledger.jdbc.migration;

import dev.toolledger.api.SqlDialect;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One numbered schema change: the statements to run, per dialect, in one transaction.
 *
 * @param version 1, 2, 3, ... within its component; the same number means the same change on every
 *     dialect
 */
public record Migration(int version, String description, Map<SqlDialect, List<String>> statements) {
  public Migration {
    if (version < 1) {
      throw new IllegalArgumentException("a migration version starts at 1");
    }
    Objects.requireNonNull(description, "description");
    EnumMap<SqlDialect, List<String>> copy = new EnumMap<>(SqlDialect.class);
    statements.forEach((dialect, sql) -> copy.put(dialect, List.copyOf(sql)));
    for (SqlDialect dialect : SqlDialect.values()) {
      if (!copy.containsKey(dialect)) {
        throw new IllegalArgumentException(
            "migration " + version + " has no statements for " + dialect);
      }
    }
    statements = Map.copyOf(copy);
  }

  /** A migration whose statements are the same on every dialect. */
  public static Migration portable(int version, String description, String... sql) {
    Map<SqlDialect, List<String>> statements = new EnumMap<>(SqlDialect.class);
    for (SqlDialect dialect : SqlDialect.values()) {
      statements.put(dialect, List.of(sql));
    }
    return new Migration(version, description, statements);
  }

  /** A migration whose statements differ between SQLite and PostgreSQL. */
  public static Migration perDialect(
      int version, String description, List<String> sqlite, List<String> postgresql) {
    return new Migration(
        version, description, Map.of(SqlDialect.SQLITE, sqlite, SqlDialect.POSTGRESQL, postgresql));
  }

  public List<String> statementsFor(SqlDialect dialect) {
    return statements.get(dialect);
  }
}
