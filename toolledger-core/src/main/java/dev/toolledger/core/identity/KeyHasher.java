package dev.toolledger.core.identity;

import dev.toolledger.api.TenantId;
import dev.toolledger.protocol.OperationKey;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Objects;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Names an operation key wherever it leaves the request (log lines, operator output) without
 * letting a reader confirm a guess: HMAC-SHA256, keyed with a per-installation secret, over the
 * tenant and the key, cut to {@value #HEX_DIGITS} hex digits.
 *
 * <p>A plain hash of the key would not do: keys are often guessable ({@code order-42}), and anyone
 * who reads a log line could hash candidates until one matches. Without the secret the value says
 * nothing about the key; with it (an operator running {@code toolledger ops hash-key}) the hash of
 * a key one holds can be computed and searched for.
 *
 * <p>The tenant is part of the input because a key names an operation only within its tenant: the
 * same key in two tenants gives two unrelated hashes, so a line never links one tenant's operations
 * to another's.
 *
 * <p>Not a guarantee against a reader who also has the secret (a database backup holds it) and not
 * an identifier: {@value #HEX_DIGITS} hex digits are enough to correlate lines, not to be unique
 * across a large ledger. Thread-safe.
 */
public final class KeyHasher {
  /** Bytes of a secret made by {@link #newSecret()}; also the least {@link #of} accepts. */
  public static final int SECRET_BYTES = 32;

  /** Hex digits of a hash: 64 bits. */
  public static final int HEX_DIGITS = 16;

  private static final String ALGORITHM = "HmacSHA256";
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final HexFormat HEX = HexFormat.of();

  private final Mac prototype;

  private KeyHasher(byte[] secret) {
    try {
      Mac mac = Mac.getInstance(ALGORITHM);
      mac.init(new SecretKeySpec(secret, ALGORITHM));
      this.prototype = mac;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is required by the Java platform", e);
    }
  }

  /**
   * A hasher keyed with {@code secret}, at least {@value #SECRET_BYTES} bytes (the ledger's
   * installation secret).
   */
  public static KeyHasher of(byte[] secret) {
    Objects.requireNonNull(secret, "secret");
    if (secret.length < SECRET_BYTES) {
      throw new IllegalArgumentException(
          "a key-hash secret has at least " + SECRET_BYTES + " bytes; got " + secret.length);
    }
    return new KeyHasher(secret.clone());
  }

  /**
   * A hasher with a fresh random secret that nothing else knows: its hashes correlate lines of this
   * process only. What an engine uses when it is not given the ledger's.
   */
  public static KeyHasher ephemeral() {
    return new KeyHasher(newSecret());
  }

  /** {@value #SECRET_BYTES} bytes from {@link SecureRandom}. */
  public static byte[] newSecret() {
    byte[] secret = new byte[SECRET_BYTES];
    RANDOM.nextBytes(secret);
    return secret;
  }

  /** The {@value #HEX_DIGITS}-hex-digit hash of {@code key} in {@code tenant}. */
  public String hash(TenantId tenant, OperationKey key) {
    Objects.requireNonNull(tenant, "tenant");
    Objects.requireNonNull(key, "key");
    byte[] tenantBytes = tenant.value().getBytes(StandardCharsets.US_ASCII);
    byte[] keyBytes = key.value().getBytes(StandardCharsets.US_ASCII);
    // Length-prefixed, so that no (tenant, key) pair reads as another.
    ByteBuffer input = ByteBuffer.allocate(4 + tenantBytes.length + keyBytes.length);
    input.putInt(tenantBytes.length).put(tenantBytes).put(keyBytes);
    byte[] digest = mac().doFinal(input.array());
    return HEX.formatHex(digest, 0, HEX_DIGITS / 2);
  }

  private Mac mac() {
    try {
      return (Mac) prototype.clone();
    } catch (CloneNotSupportedException e) {
      throw new IllegalStateException("the platform's HmacSHA256 cannot be cloned", e);
    }
  }

  /** Never shows the secret. */
  @Override
  public String toString() {
    return "KeyHasher[HmacSHA256, secret withheld]";
  }
}
