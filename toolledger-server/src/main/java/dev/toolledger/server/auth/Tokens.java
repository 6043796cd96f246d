package dev.toolledger.server.auth;

import dev.toolledger.api.TenantId;
import dev.toolledger.core.auth.Scopes;
import dev.toolledger.core.auth.TokenRecord;
import dev.toolledger.core.auth.TokenStore;
import dev.toolledger.core.fingerprint.Sha256;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Issues and checks bearer tokens. A token is {@code tl_<id>_<secret>}: the id is public (it names
 * the token in listings and revocations), the secret is 256 random bits. Only the SHA-256 of the
 * whole token is stored, so the database never holds a usable token. A token's tenant and {@link
 * Scopes} are fixed when it is issued; to change them, issue another and revoke the old one.
 */
public final class Tokens {
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final Base64.Encoder BASE64URL = Base64.getUrlEncoder().withoutPadding();

  /** Default time an accepted token is trusted without asking the database again: 5 s. */
  public static final Duration DEFAULT_CACHE_TTL = Duration.ofSeconds(5);

  private static final int CACHE_LIMIT = 10_000;

  private final TokenStore store;
  private final Clock clock;
  private final long cacheTtlNanos;
  private final Map<String, Accepted> accepted = new ConcurrentHashMap<>();

  public Tokens(TokenStore store, Clock clock) {
    this(store, clock, DEFAULT_CACHE_TTL);
  }

  /**
   * @param cacheTtl how long an accepted token is trusted without asking the database again, so
   *     that a request does not pay a read for its token; a token revoked in another process keeps
   *     working on this node for at most this long. Zero asks the database every time.
   */
  public Tokens(TokenStore store, Clock clock, Duration cacheTtl) {
    if (cacheTtl.isNegative()) {
      throw new IllegalArgumentException("the token cache's time to live must not be negative");
    }
    this.store = store;
    this.clock = clock;
    this.cacheTtlNanos = cacheTtl.toNanos();
  }

  private record Accepted(Principal principal, long untilNanos) {}

  /** A newly issued token: the secret is shown once and never stored. */
  public record IssuedToken(String token, TokenRecord record) {
    @Override
    public String toString() {
      return "IssuedToken[id="
          + record.id()
          + ", tenant="
          + record.tenant().map(TenantId::value).orElse("(operator)")
          + "]";
    }
  }

  /** Issues a token for a tenant with the default scopes ({@link Scopes#tenantDefault()}). */
  public IssuedToken issue(TenantId tenant, String label) {
    return issue(tenant, Scopes.tenantDefault(), label);
  }

  /**
   * Issues a token for {@code tenant} with {@code scopes}.
   *
   * @throws IllegalArgumentException for the operator scope: see {@link #issueOperator}
   */
  public IssuedToken issue(TenantId tenant, Scopes scopes, String label) {
    if (scopes.isOperator()) {
      throw new IllegalArgumentException(
          "an operator token acts for no tenant; issue it with issueOperator");
    }
    return issue(Optional.of(tenant), scopes, label);
  }

  /**
   * Issues an operator token: no tenant, scope {@code operator}. The tenant API and MCP refuse it;
   * it is for an operator console or CLI.
   */
  public IssuedToken issueOperator(String label) {
    return issue(Optional.empty(), Scopes.operator(), label);
  }

  private IssuedToken issue(Optional<TenantId> tenant, Scopes scopes, String label) {
    byte[] idBytes = new byte[6];
    byte[] secret = new byte[32];
    RANDOM.nextBytes(idBytes);
    RANDOM.nextBytes(secret);
    String id = HexFormat.of().formatHex(idBytes);
    String token = "tl_" + id + "_" + BASE64URL.encodeToString(secret);
    TokenRecord record =
        new TokenRecord(id, hash(token), tenant, scopes, label, clock.instant(), Optional.empty());
    store.insert(record);
    return new IssuedToken(token, record);
  }

  /** The principal of an active token, or empty for an unknown, malformed or revoked one. */
  public Optional<Principal> authenticate(String token) {
    if (token == null || token.length() > 200 || !token.startsWith("tl_")) {
      return Optional.empty();
    }
    String hash = hash(token);
    long now = System.nanoTime();
    Accepted known = accepted.get(hash);
    if (known != null && now - known.untilNanos() < 0) {
      return Optional.of(known.principal());
    }
    Optional<Principal> principal =
        store.findBySecretHash(hash).filter(TokenRecord::isActive).map(Tokens::principal);
    // Only accepted tokens are remembered: unknown ones are not, so guessing fills no memory.
    if (principal.isPresent() && cacheTtlNanos > 0) {
      if (accepted.size() >= CACHE_LIMIT) {
        accepted.clear();
      }
      accepted.put(hash, new Accepted(principal.get(), now + cacheTtlNanos));
    } else {
      accepted.remove(hash);
    }
    return principal;
  }

  private static Principal principal(TokenRecord record) {
    return record.isOperator()
        ? Principal.ofOperator(record.id())
        : Principal.ofTenant(record.tenant().orElseThrow(), record.id(), record.scopes());
  }

  /** Revokes a token and forgets it at once on this node. */
  public boolean revoke(String id) {
    boolean revoked = store.revoke(id, clock.instant());
    accepted.values().removeIf(entry -> entry.principal().tokenId().equals(id));
    return revoked;
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
    return HEX.formatHex(Sha256.digest().digest(token.getBytes(StandardCharsets.UTF_8)));
  }

  private static final HexFormat HEX = HexFormat.of();
}
