package dev.toolledger.api;

import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A tool's own tables as numbered steps, applied in order in the ledger database, each at most once
 * per database (recorded beside the ledger's own schema version, under {@code component}). Several
 * nodes starting at once apply each step once: they take one migration lock.
 *
 * <p>Never change a step that has shipped: add the next one. Steps run in a transaction where the
 * database allows it (PostgreSQL; SQLite for most DDL).
 *
 * @param component a stable name for the set of tables, {@code [a-z][a-z0-9_-]*}
 * @param steps versions 1, 2, 3... in order
 */
public record TableSchema(String component, List<Step> steps) {
  // The stores record migrations under this name; they take the same pattern.
  private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9_-]{0,63}");

  public TableSchema {
    Objects.requireNonNull(component, "component");
    if (!NAME.matcher(component).matches()) {
      throw new IllegalArgumentException(
          "table schema component '"
              + component
              + "' must start with a lowercase letter, then lowercase letters, digits, '_'"
              + " or '-' (1 to 64)");
    }
    steps = List.copyOf(steps);
    if (steps.isEmpty()) {
      throw new IllegalArgumentException("table schema " + component + " has no steps");
    }
    for (int i = 0; i < steps.size(); i++) {
      if (steps.get(i).version() != i + 1) {
        throw new IllegalArgumentException(
            "table schema "
                + component
                + ": step "
                + (i + 1)
                + " has version "
                + steps.get(i).version()
                + "; versions must be 1, 2, 3... in order");
      }
    }
  }

  public static TableSchema of(String component, Step... steps) {
    return new TableSchema(component, List.of(steps));
  }

  /**
   * One step: the statements for each dialect.
   *
   * @param version 1 for the first step, then one more for each
   * @param description what the step does, kept in the schema history
   */
  public record Step(
      int version, String description, List<String> sqlite, List<String> postgresql) {
    public Step {
      Objects.requireNonNull(description, "description");
      sqlite = List.copyOf(sqlite);
      postgresql = List.copyOf(postgresql);
      if (version < 1) {
        throw new IllegalArgumentException("a step version starts at 1");
      }
      if (sqlite.isEmpty() || postgresql.isEmpty()) {
        throw new IllegalArgumentException(
            "step " + version + " needs statements for both dialects");
      }
    }

    /** The same statements on SQLite and PostgreSQL. */
    public static Step portable(int version, String description, String... statements) {
      return new Step(version, description, List.of(statements), List.of(statements));
    }

    /** Different statements per dialect (for example an identity column). */
    public static Step perDialect(
        int version, String description, List<String> sqlite, List<String> postgresql) {
      return new Step(version, description, sqlite, postgresql);
    }

    public List<String> statementsFor(SqlDialect dialect) {
      return dialect == SqlDialect.SQLITE ? sqlite : postgresql;
    }
  }
}
