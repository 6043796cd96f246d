package dev.toolledger.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolledger.jdbc.DatabaseLocation.Postgres;
import dev.toolledger.jdbc.DatabaseLocation.SqliteFile;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DatabaseLocationTest {
  private static final String PG_URL = "jdbc:postgresql://db.internal:5432/ledger";
  private static final Map<String, String> NO_ENV = Map.of();

  @Test
  void withoutOptionOrEnvironmentTheLedgerIsTheDefaultSqliteFile() {
    assertThat(DatabaseLocation.resolve(null, NO_ENV))
        .isEqualTo(new SqliteFile(Path.of("toolledger.db")));
  }

  @Test
  void aPathIsASqliteFile() {
    assertThat(DatabaseLocation.resolve("/var/lib/toolledger/ledger.db", NO_ENV))
        .isEqualTo(new SqliteFile(Path.of("/var/lib/toolledger/ledger.db")));
    assertThat(DatabaseLocation.resolve("data/ledger.db", NO_ENV))
        .isEqualTo(new SqliteFile(Path.of("data/ledger.db")));
  }

  @Test
  void aSqliteJdbcUrlIsItsFile() {
    assertThat(DatabaseLocation.resolve("jdbc:sqlite:/tmp/x.db", NO_ENV))
        .isEqualTo(new SqliteFile(Path.of("/tmp/x.db")));
  }

  @Test
  void aPostgresqlUrlIsPostgresqlWithCredentialsFromTheEnvironment() {
    Map<String, String> env =
        Map.of(
            DatabaseLocation.USER_VARIABLE, "ledger",
            DatabaseLocation.PASSWORD_VARIABLE, "s3cr3t");

    DatabaseLocation location = DatabaseLocation.resolve(PG_URL, env);

    assertThat(location)
        .isEqualTo(new Postgres(PG_URL, Optional.of("ledger"), Optional.of("s3cr3t")));
    PostgresOptions options = ((Postgres) location).options().build();
    assertThat(options.user()).contains("ledger");
    assertThat(options.password()).contains("s3cr3t");
  }

  @Test
  void theUrlMayComeFromTheEnvironment() {
    assertThat(DatabaseLocation.resolve(null, Map.of(DatabaseLocation.URL_VARIABLE, PG_URL)))
        .isEqualTo(new Postgres(PG_URL, Optional.empty(), Optional.empty()));
    assertThat(DatabaseLocation.resolve(null, Map.of(DatabaseLocation.URL_VARIABLE, "/data/l.db")))
        .isEqualTo(new SqliteFile(Path.of("/data/l.db")));
  }

  @Test
  void theDbOptionWinsOverTheEnvironment() {
    Map<String, String> env = Map.of(DatabaseLocation.URL_VARIABLE, PG_URL);

    assertThat(DatabaseLocation.resolve("local.db", env))
        .isEqualTo(new SqliteFile(Path.of("local.db")));
  }

  @Test
  void blankEnvironmentValuesCountAsUnset() {
    Map<String, String> env =
        Map.of(
            DatabaseLocation.URL_VARIABLE, "  ",
            DatabaseLocation.USER_VARIABLE, "",
            DatabaseLocation.PASSWORD_VARIABLE, " ");

    assertThat(DatabaseLocation.resolve(null, env))
        .isEqualTo(new SqliteFile(Path.of("toolledger.db")));
    assertThat(DatabaseLocation.resolve(PG_URL, env))
        .isEqualTo(new Postgres(PG_URL, Optional.empty(), Optional.empty()));
  }

  @Test
  void aBlankDbOptionIsRefused() {
    assertThatThrownBy(() -> DatabaseLocation.resolve(" ", NO_ENV))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--db");
  }

  @Test
  void urlsOfOtherDatabasesAreRefusedRatherThanTakenForFileNames() {
    assertThatThrownBy(() -> DatabaseLocation.resolve("jdbc:mysql://db/ledger", NO_ENV))
        .hasMessageContaining("--db names an unsupported database");
    assertThatThrownBy(
            () ->
                DatabaseLocation.resolve(
                    null, Map.of(DatabaseLocation.URL_VARIABLE, "postgresql://db/ledger")))
        .hasMessageContaining(DatabaseLocation.URL_VARIABLE + " names an unsupported database");
  }

  @Test
  void neitherToStringNorDescriptionShowsThePassword() {
    Postgres location =
        (Postgres)
            DatabaseLocation.resolve(
                PG_URL + "?password=in-url",
                Map.of(DatabaseLocation.PASSWORD_VARIABLE, "from-env"));

    assertThat(location.toString()).doesNotContain("from-env").doesNotContain("in-url");
    assertThat(location.description())
        .isEqualTo("postgresql://db.internal:5432/ledger?password=***");
  }

  @Test
  void openingASqliteLocationAppliesTheGivenOptionsAndMigrations(@TempDir Path dir)
      throws Exception {
    DatabaseLocation location = DatabaseLocation.resolve(dir.resolve("l.db").toString(), NO_ENV);

    try (JdbcLedgerStore store =
        location.open(List.of(ItemsTool.MIGRATIONS), Synchronous.NORMAL, Duration.ofMillis(1234))) {
      try (var c = store.dataSource().getConnection();
          var st = c.createStatement()) {
        var sync = st.executeQuery("PRAGMA synchronous");
        sync.next();
        assertThat(sync.getInt(1)).isEqualTo(1);
        var busy = st.executeQuery("PRAGMA busy_timeout");
        busy.next();
        assertThat(busy.getInt(1)).isEqualTo(1234);
        var items = st.executeQuery("SELECT COUNT(*) FROM test_items");
        items.next();
        assertThat(items.getInt(1)).isZero();
      }
      assertThat(store.description()).isEqualTo(location.description());
    }
  }
}
