package dev.toolledger.core.engine;

import dev.toolledger.api.TenantId;
import dev.toolledger.core.fingerprint.Sha256;
import dev.toolledger.core.identity.KeyHasher;
import dev.toolledger.protocol.OperationKey;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Objects;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Derives the key an external tool sends downstream (an HTTP tool's {@code Idempotency-Key}):
 * {@code tl2-} and 128 bits of HMAC-SHA256, keyed with the installation's downstream-key secret,
 * over the tenant and the operation key. Stable across retries and takeovers (the engine stores the
 * key with the claim and recovery reuses the stored one), distinct between tenants and between
 * installations, and unpredictable without the secret: whoever can call the upstream cannot send
 * the key first and make the tenant's later call record the intruder's effect as its own.
 *
 * <p>The prefix names the derivation. {@link #legacy} is the first one ({@code tl-} and a plain
 * SHA-256, predictable), kept only for claims made before keys were stored with them. Thread-safe.
 */
public final class DownstreamKeys {
  /** The prefix of keys made by {@link #derive}. */
  public static final String PREFIX = "tl2-";

  private static final String ALGORITHM = "HmacSHA256";
  private static final byte[] LABEL =
      "toolledger/downstream-key/v2\0".getBytes(StandardCharsets.US_ASCII);

  private final Mac prototype;

  private DownstreamKeys(byte[] secret) {
    try {
      Mac mac = Mac.getInstance(ALGORITHM);
      mac.init(new SecretKeySpec(secret, ALGORITHM));
      this.prototype = mac;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is required by the Java platform", e);
    }
  }

  /**
   * Keys derived under {@code secret}, at least {@value KeyHasher#SECRET_BYTES} bytes (the ledger's
   * downstream-key secret, {@code JdbcLedgerStore.downstreamKeys()}).
   */
  public static DownstreamKeys of(byte[] secret) {
    Objects.requireNonNull(secret, "secret");
    if (secret.length < KeyHasher.SECRET_BYTES) {
      throw new IllegalArgumentException(
          "a downstream-key secret has at least "
              + KeyHasher.SECRET_BYTES
              + " bytes; got "
              + secret.length);
    }
    return new DownstreamKeys(secret.clone());
  }

  /**
   * Keys under a fresh random secret of this process only: what an engine uses when it is not given
   * the ledger's. Still safe (each claim stores its key), but another process derives other keys.
   */
  public static DownstreamKeys ephemeral() {
    return new DownstreamKeys(KeyHasher.newSecret());
  }

  /** The downstream key of {@code key} in {@code tenant}: {@code tl2-} and 32 hex digits. */
  public String derive(TenantId tenant, OperationKey key) {
    byte[] tenantBytes = tenant.value().getBytes(StandardCharsets.US_ASCII);
    byte[] keyBytes = key.value().getBytes(StandardCharsets.US_ASCII);
    // Length-prefixed, so that no (tenant, key) pair reads as another.
    ByteBuffer input = ByteBuffer.allocate(LABEL.length + 4 + tenantBytes.length + keyBytes.length);
    input.put(LABEL).putInt(tenantBytes.length).put(tenantBytes).put(keyBytes);
    Mac mac;
    try {
      mac = (Mac) prototype.clone();
    } catch (CloneNotSupportedException e) {
      throw new IllegalStateException("the platform's HmacSHA256 cannot be cloned", e);
    }
    return PREFIX + HexFormat.of().formatHex(mac.doFinal(input.array()), 0, 16);
  }

  /**
   * The first derivation, {@code tl-} and 128 bits of a plain SHA-256 of the tenant and the key:
   * predictable by anyone who knows both. Only for a claim stored without its key (made before the
   * ledger kept downstream keys), so that it is settled with the key it was sent with.
   */
  public static String legacy(TenantId tenant, OperationKey key) {
    MessageDigest sha = Sha256.digest();
    sha.update("toolledger/downstream-key/v1\0".getBytes(StandardCharsets.US_ASCII));
    sha.update(tenant.value().getBytes(StandardCharsets.US_ASCII));
    sha.update((byte) 0);
    sha.update(key.value().getBytes(StandardCharsets.US_ASCII));
    return "tl-" + HexFormat.of().formatHex(sha.digest(), 0, 16);
  }

  /** Never shows the secret. */
  @Override
  public String toString() {
    return "DownstreamKeys[HmacSHA256, secret withheld]";
  }
}
