package dev.toolledger.core.identity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolledger.api.TenantId;
import dev.toolledger.protocol.OperationKey;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

class KeyHasherTest {
  private static final TenantId ACME = TenantId.of("acme");
  private static final OperationKey GUESSABLE = OperationKey.of("order-42");

  @Test
  void theSameSecretGivesTheSameHashAndAnotherSecretAnother() {
    byte[] secret = KeyHasher.newSecret();

    String hash = KeyHasher.of(secret).hash(ACME, GUESSABLE);

    assertThat(hash).matches("[0-9a-f]{16}");
    assertThat(KeyHasher.of(secret.clone()).hash(ACME, GUESSABLE)).isEqualTo(hash);
    assertThat(KeyHasher.of(KeyHasher.newSecret()).hash(ACME, GUESSABLE)).isNotEqualTo(hash);
    assertThat(KeyHasher.ephemeral().hash(ACME, GUESSABLE)).isNotEqualTo(hash);
  }

  @Test
  void theHashIsHmacSha256OfTheLengthPrefixedTenantAndTheKey() throws Exception {
    byte[] secret = KeyHasher.newSecret();
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(secret, "HmacSHA256"));
    byte[] expected = mac.doFinal("\0\0\0\4acmeorder-42".getBytes(StandardCharsets.US_ASCII));

    assertThat(KeyHasher.of(secret).hash(ACME, GUESSABLE))
        .isEqualTo(HexFormat.of().formatHex(expected, 0, 8));
  }

  @Test
  void aGuessCannotBeConfirmedWithAPlainHash() throws Exception {
    String hash = KeyHasher.ephemeral().hash(ACME, GUESSABLE);
    String plain =
        HexFormat.of()
            .formatHex(
                MessageDigest.getInstance("SHA-256")
                    .digest(GUESSABLE.value().getBytes(StandardCharsets.US_ASCII)));

    assertThat(plain).doesNotContain(hash);
    assertThat(hash).doesNotContain(plain.substring(0, 12));
  }

  @Test
  void theTenantIsPartOfTheHash() {
    KeyHasher hasher = KeyHasher.ephemeral();

    assertThat(hasher.hash(ACME, GUESSABLE))
        .isNotEqualTo(hasher.hash(TenantId.of("globex"), GUESSABLE));
    // No tenant and key pair reads as another: ("ab", "c") is not ("a", "bc").
    assertThat(hasher.hash(TenantId.of("ab"), OperationKey.of("c")))
        .isNotEqualTo(hasher.hash(TenantId.of("a"), OperationKey.of("bc")));
  }

  @Test
  void aShortSecretIsRefusedAndNoSecretIsShown() {
    assertThatThrownBy(() -> KeyHasher.of(new byte[16]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least 32 bytes");
    byte[] secret = KeyHasher.newSecret();
    assertThat(KeyHasher.of(secret).toString())
        .doesNotContain(HexFormat.of().formatHex(secret))
        .contains("withheld");
  }
}
