package dev.toolledger.core.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.api.TenantId;
import dev.toolledger.core.identity.OperationKey;
import org.junit.jupiter.api.Test;

class RecentKeysTest {
  private static final TenantId ACME = TenantId.of("acme");

  @Test
  void aKeyAddedIsFoundAndAnotherIsNot() {
    RecentKeys recent = new RecentKeys();

    recent.add(ACME, OperationKey.of("k-1"));

    assertThat(recent.contains(ACME, OperationKey.of("k-1"))).isTrue();
    assertThat(recent.contains(ACME, OperationKey.of("k-2"))).isFalse();
    assertThat(recent.contains(TenantId.of("other"), OperationKey.of("k-1"))).isFalse();
  }

  @Test
  void theSetIsBoundedSoOldKeysAreForgotten() {
    RecentKeys recent = new RecentKeys();
    recent.add(ACME, OperationKey.of("first"));

    for (int i = 0; i < 1_000_000; i++) {
      recent.add(ACME, OperationKey.of("k-" + i));
    }

    assertThat(recent.contains(ACME, OperationKey.of("first"))).isFalse();
    assertThat(recent.contains(ACME, OperationKey.of("k-999999"))).isTrue();
  }
}
