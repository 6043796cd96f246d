package dev.toolledger.core.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.api.TenantId;
import dev.toolledger.protocol.OperationKey;
import java.util.ArrayList;
import java.util.List;
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
  void aWorkingSetOfAThousandKeysIsKeptWholeWhateverTheirHashes() {
    // A direct-mapped table of the same size lost 20 to 38 keys of such a set in every trial, and a
    // 4-way one lost a key in trial 2.
    for (int trial = 0; trial < 50; trial++) {
      RecentKeys recent = new RecentKeys();
      List<OperationKey> keys = new ArrayList<>();
      for (int i = 0; i < 1_000; i++) {
        keys.add(OperationKey.of("replay-" + trial + "-" + i));
      }

      keys.forEach(key -> recent.add(ACME, key));
      keys.forEach(key -> recent.add(ACME, key)); // used again: nothing of the set is evicted

      assertThat(keys).allMatch(key -> recent.contains(ACME, key), "kept in trial " + trial);
    }
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
