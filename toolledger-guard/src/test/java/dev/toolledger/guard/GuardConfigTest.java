package dev.toolledger.guard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class GuardConfigTest {
  private static GuardConfig.Builder valid() {
    return GuardConfig.builder()
        .endpoint(URI.create("http://127.0.0.1:8080/mcp"))
        .token("tl_abc_secret")
        .journal(Path.of("guard.db"));
  }

  @Test
  void defaultsAreTheNamedConstants() {
    GuardConfig config = valid().build();

    assertThat(config.session()).isEqualTo(GuardConfig.DEFAULT_SESSION);
    assertThat(config.claimWindow()).isEqualTo(GuardConfig.DEFAULT_CLAIM_WINDOW);
    assertThat(config.attemptTimeout()).isEqualTo(GuardConfig.DEFAULT_ATTEMPT_TIMEOUT);
    assertThat(config.retryPolicy().deadline()).isEqualTo(Duration.ofSeconds(30));
  }

  @Test
  void anEndpointWithoutAPathGetsMcp() {
    assertThat(valid().endpoint(URI.create("http://127.0.0.1:8080")).build().endpoint())
        .isEqualTo(URI.create("http://127.0.0.1:8080/mcp"));
  }

  @Test
  void theTokenIsNeverInToString() {
    assertThat(valid().build().toString()).doesNotContain("secret");
  }

  @Test
  void badOptionsAreRefusedByName() {
    assertThatThrownBy(() -> valid().token(null).build()).hasMessageContaining("TOOLLEDGER_TOKEN");
    assertThatThrownBy(() -> valid().endpoint(URI.create("ftp://x/mcp")).build())
        .hasMessageContaining("endpoint");
    assertThatThrownBy(() -> valid().journal(null).build()).hasMessageContaining("journal");
    assertThatThrownBy(() -> valid().claimWindow(Duration.ofHours(25)).build())
        .hasMessageContaining("claimWindow");
    assertThatThrownBy(() -> valid().claimWindow(Duration.ZERO).build())
        .hasMessageContaining("claimWindow");
    assertThatThrownBy(() -> valid().attemptTimeout(Duration.ofSeconds(-1)).build())
        .hasMessageContaining("attemptTimeout");
    assertThatThrownBy(() -> valid().session(" ").build()).hasMessageContaining("session");
  }
}
