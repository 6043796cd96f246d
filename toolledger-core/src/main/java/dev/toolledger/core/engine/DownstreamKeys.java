package dev.toolledger.core.engine;

import dev.toolledger.api.TenantId;
import dev.toolledger.core.fingerprint.Sha256;
import dev.toolledger.core.identity.OperationKey;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;

/**
 * Derives the key an external tool sends downstream: {@code tl-} and 128 bits of SHA-256 over the
 * tenant and the operation key. Stable across retries and takeovers, distinct between tenants, and
 * not the caller's key itself (which stays between the caller and the ledger).
 */
public final class DownstreamKeys {
  private DownstreamKeys() {}

  public static String derive(TenantId tenant, OperationKey key) {
    MessageDigest sha = Sha256.digest();
    sha.update("toolledger/downstream-key/v1\0".getBytes(StandardCharsets.US_ASCII));
    sha.update(tenant.value().getBytes(StandardCharsets.US_ASCII));
    sha.update((byte) 0);
    sha.update(key.value().getBytes(StandardCharsets.US_ASCII));
    return "tl-" + HexFormat.of().formatHex(sha.digest(), 0, 16);
  }
}
