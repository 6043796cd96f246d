package dev.toolledger.core.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ScopesTest {

  @Test
  void toolScopesAllowTheirToolAndTheWildcardAllowsEvery() {
    Scopes one = Scopes.of("tools:create-note");
    Scopes all = Scopes.of("tools:*");

    assertThat(one.allowsTool("create-note")).isTrue();
    assertThat(one.allowsTool("send-mail")).isFalse();
    assertThat(one.allowsTool("create-note2")).isFalse();
    assertThat(all.allowsTool("send-mail")).isTrue();
    assertThat(one.allowsRead()).isFalse();
    assertThat(Scopes.of("read").allowsAnyTool()).isFalse();
  }

  @Test
  void theStoredFormIsSortedAndReadsBack() {
    Scopes scopes = Scopes.of("tools:*", "resolve", "read");

    assertThat(scopes.toString()).isEqualTo("read resolve tools:*");
    assertThat(Scopes.parse(" read  resolve tools:* ")).isEqualTo(scopes);
    assertThat(Scopes.tenantAll()).isEqualTo(scopes);
    assertThat(Scopes.tenantDefault()).isEqualTo(Scopes.of("read", "tools:*"));
  }

  @Test
  void unknownEmptyAndMixedOperatorScopesAreRefused() {
    assertThatThrownBy(() -> Scopes.of("write"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown scope 'write'");
    assertThatThrownBy(() -> Scopes.of("tools:Create Note"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Scopes.of()).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Scopes.parse("  ")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Scopes.of("operator", "read"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("operator scope stands alone");
    assertThat(Scopes.operator().isOperator()).isTrue();
    assertThat(Scopes.operator().allowsTool("create-note")).isFalse();
  }
}
