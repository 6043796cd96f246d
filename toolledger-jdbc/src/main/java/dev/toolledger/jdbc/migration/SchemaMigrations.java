package dev.toolledger.jdbc.migration;

import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The ordered migrations of one component's tables (the ledger's own, or a tool's). Versions run 1,
 * 2, 3, ... without gaps; applied versions are recorded per component in {@code tl_schema_version},
 * so tools can ship their tables beside the ledger's.
 */
public record SchemaMigrations(String component, List<Migration> migrations) {
  private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9_-]{0,63}");

  public SchemaMigrations {
    Objects.requireNonNull(component, "component");
    if (!NAME.matcher(component).matches()) {
      throw new IllegalArgumentException("component name '" + component + "' is not valid");
    }
    migrations = List.copyOf(migrations);
    for (int i = 0; i < migrations.size(); i++) {
      if (migrations.get(i).version() != i + 1) {
        throw new IllegalArgumentException(
            component
                + ": migration versions must run 1, 2, 3, ... without gaps; found "
                + migrations.get(i).version()
                + " at position "
                + (i + 1));
      }
    }
  }

  public static SchemaMigrations of(String component, Migration... migrations) {
    return new SchemaMigrations(component, List.of(migrations));
  }

  public int latestVersion() {
    return migrations.size();
  }
}
