package dev.toolledger.server.auth;

import dev.toolledger.core.auth.TokenRecord;
import dev.toolledger.core.auth.TokenStore;
import dev.toolledger.core.identity.TenantId;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Optional;

/**
 * Issues and checks bearer tokens. A token is {@code tl_<id>_<secret>}: the id is public (it names
 * the token in listings and revocations), the secret is 256 random bits. Only the SHA-256 of the
 * whole token is stored, so the database never holds a usable token.
 */
public final class Tokens {
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final Base64.Encoder BASE64URL = Base64.getUrlEncoder().withoutPadding();

  private final TokenStore store;
  private final Clock clock;

  public Tokens(TokenStore store, Clock clock) {
    this.store = store;
    this.clock = clock;
  }

  /** A newly issued token: the secret is shown once and never stored. */
  public record IssuedToken(String token, TokenRecord record) {
    @Override
    public String toString() {
      return "IssuedToken[id=" + record.id() + ", tenant=" + record.tenant() + "]";
    }
  }

  public IssuedToken issue(TenantId tenant, String label) {
    byte[] idBytes = new byte[6];
    byte[] secret = new byte[32];
    RANDOM.nextBytes(idBytes);
    RANDOM.nextBytes(secret);
    String id = HexFormat.of().formatHex(idBytes);
    String token = "tl_" + id + "_" + BASE64URL.encodeToString(secret);
    TokenRecord record =
        new TokenRecord(id, hash(token), tenant, label, clock.instant(), Optional.empty());
    store.insert(record);
    return new IssuedToken(token, record);
  }

  /** The principal of an active token, or empty for an unknown, malformed or revoked one. */
  public Optional<Principal> authenticate(String token) {
    if (token == null || token.length() > 200 || !token.startsWith("tl_")) {
      return Optional.empty();
    }
    return store
        .findBySecretHash(hash(token))
        .filter(TokenRecord::isActive)
        .map(record -> new Principal(record.tenant(), record.id()));
  }

  /**
   * The principal of an {@code Authorization: Bearer <token>} header value, or empty when the
   * header is absent, is not a bearer credential, or names no active token.
   */
  public Optional<Principal> authenticateHeader(String authorization) {
    if (authorization == null
        || authorization.length() < 7
        || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return Optional.empty();
    }
    return authenticate(authorization.substring(7).strip());
  }

  static String hash(String token) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by the Java platform", e);
    }
  }
}
