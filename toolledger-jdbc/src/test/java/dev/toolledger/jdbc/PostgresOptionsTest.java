package dev.toolledger.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class PostgresOptionsTest {
  private static final String URL = "jdbc:postgresql://db.internal:5432/ledger";

  @Test
  void defaultsAreDocumented() {
    PostgresOptions options = PostgresOptions.builder(URL).build();

    assertThat(options.poolSize()).isEqualTo(PostgresOptions.DEFAULT_POOL_SIZE).isEqualTo(10);
    assertThat(options.connectionTimeout()).isEqualTo(Duration.ofSeconds(5));
    assertThat(options.user()).isEmpty();
    assertThat(options.password()).isEmpty();
    assertThat(options.migrations()).isEmpty();
  }

  @Test
  void theLinksBoundsAreSizedAgainstTheClaimWait() {
    PostgresOptions defaults = PostgresOptions.builder(URL).build();
    assertThat(defaults.statementTimeout())
        .isEqualTo(PostgresOptions.DEFAULT_STATEMENT_TIMEOUT)
        .isEqualTo(Duration.ofSeconds(10));
    assertThat(defaults.socketTimeout())
        .isEqualTo(PostgresOptions.DEFAULT_SOCKET_TIMEOUT)
        .isEqualTo(Duration.ofSeconds(15));

    PostgresOptions longerWait =
        PostgresOptions.builder(URL).claimWait(Duration.ofSeconds(20)).build();
    assertThat(longerWait.statementTimeout()).isEqualTo(Duration.ofSeconds(40));
    assertThat(longerWait.socketTimeout()).isEqualTo(Duration.ofSeconds(45));

    PostgresOptions none = PostgresOptions.builder(URL).statementTimeout(Duration.ZERO).build();
    assertThat(none.socketTimeout()).isZero();
  }

  @Test
  void boundsThatWouldCutAClaimOrAStatementShortAreRefusedByName() {
    assertThatThrownBy(
            () ->
                PostgresOptions.builder(URL)
                    .claimWait(Duration.ofSeconds(5))
                    .statementTimeout(Duration.ofSeconds(5))
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("statementTimeout must exceed claimWait");
    assertThatThrownBy(
            () ->
                PostgresOptions.builder(URL)
                    .statementTimeout(Duration.ofSeconds(10))
                    .socketTimeout(Duration.ofSeconds(10))
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("socketTimeout must exceed statementTimeout");
  }

  @Test
  void toStringNeverShowsThePasswordGivenAsOption() {
    PostgresOptions options =
        PostgresOptions.builder(URL).user("ledger").password("s3cr3t-option").build();

    assertThat(options.toString()).doesNotContain("s3cr3t-option").contains("password=***");
    assertThat(options.toString()).contains("user=ledger");
  }

  @Test
  void toStringAndRedactedUrlNeverShowAPasswordWrittenIntoTheUrl() {
    PostgresOptions options =
        PostgresOptions.builder(URL + "?user=ledger&password=s3cr3t-url&sslpassword=k3y&ssl=true")
            .build();

    assertThat(options.redactedUrl())
        .isEqualTo(URL + "?user=ledger&password=***&sslpassword=***&ssl=true");
    assertThat(options.toString()).doesNotContain("s3cr3t-url").doesNotContain("k3y");
  }

  @Test
  void urlOfAnotherDatabaseIsRefusedWithoutEchoingIt() {
    assertThatThrownBy(
            () -> PostgresOptions.builder("jdbc:mysql://db/ledger?password=s3cr3t").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("url must start with jdbc:postgresql:")
        .hasMessageNotContaining("s3cr3t");
  }

  @Test
  void userOrPasswordGivenTwiceIsRefused() {
    assertThatThrownBy(() -> PostgresOptions.builder(URL + "?user=a").user("b").build())
        .hasMessageContaining("user is given both");
    assertThatThrownBy(
            () -> PostgresOptions.builder(URL + "?ssl=true&password=a").password("b").build())
        .hasMessageContaining("password is given both");
  }

  @Test
  void badPoolSizeAndConnectionTimeoutAreNamed() {
    assertThatThrownBy(() -> PostgresOptions.builder(URL).poolSize(0).build())
        .hasMessageContaining("poolSize");
    assertThatThrownBy(
            () -> PostgresOptions.builder(URL).connectionTimeout(Duration.ofMillis(10)).build())
        .hasMessageContaining("connectionTimeout");
  }
}
