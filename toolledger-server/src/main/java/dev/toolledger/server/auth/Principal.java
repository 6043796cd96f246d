package dev.toolledger.server.auth;

import dev.toolledger.api.TenantId;
import dev.toolledger.core.auth.Scopes;
import java.util.Objects;
import java.util.Optional;

/**
 * Who is calling, as established by a bearer token: the tenant it acts for (none for an operator
 * token), the token's public id and its scopes. Authorization is decided here, in memory, on every
 * request: knowing a key grants nothing, and a token may replay only what it may call.
 */
public final class Principal {
  private final Optional<TenantId> tenant;
  private final String tokenId;
  private final Scopes scopes;

  private Principal(Optional<TenantId> tenant, String tokenId, Scopes scopes) {
    this.tenant = tenant;
    this.tokenId = Objects.requireNonNull(tokenId, "tokenId");
    this.scopes = Objects.requireNonNull(scopes, "scopes");
    if (tenant.isEmpty() != scopes.isOperator()) {
      throw new IllegalArgumentException("an operator acts for no tenant; everyone else for one");
    }
  }

  /**
   * A caller trusted with everything its tenant can do ({@link Scopes#tenantAll()}): for transports
   * whose caller is the tenant by construction, such as MCP on stdio.
   */
  public Principal(TenantId tenant, String tokenId) {
    this(Optional.of(Objects.requireNonNull(tenant, "tenant")), tokenId, Scopes.tenantAll());
  }

  public static Principal ofTenant(TenantId tenant, String tokenId, Scopes scopes) {
    if (scopes.isOperator()) {
      throw new IllegalArgumentException("a tenant's token cannot have the operator scope");
    }
    return new Principal(Optional.of(Objects.requireNonNull(tenant, "tenant")), tokenId, scopes);
  }

  public static Principal ofOperator(String tokenId) {
    return new Principal(Optional.empty(), tokenId, Scopes.operator());
  }

  /**
   * The tenant this caller acts for.
   *
   * @throws IllegalStateException for an operator, who acts for no tenant: code that reaches here
   *     with an operator let one into the tenant API, and must fail rather than pick a tenant
   */
  public TenantId tenant() {
    return tenant.orElseThrow(
        () -> new IllegalStateException("an operator token acts for no tenant"));
  }

  public String tokenId() {
    return tokenId;
  }

  public Scopes scopes() {
    return scopes;
  }

  /** An operator token: cross-tenant reads and resolutions for a console; no tenant, no tools. */
  public boolean isOperator() {
    return scopes.isOperator();
  }

  /** May call the tool, which includes replaying a key of it. Never for an operator. */
  public boolean mayCall(String tool) {
    return scopes.allowsTool(tool);
  }

  /** May look operations up: its tenant's ({@code read}), or every tenant's (an operator). */
  public boolean mayRead() {
    return scopes.allowsRead() || isOperator();
  }

  /** May resolve an UNKNOWN operation explicitly: its tenant's, or every tenant's (operator). */
  public boolean mayResolve() {
    return scopes.allowsResolve() || isOperator();
  }

  /**
   * May give up on a key (an inquiry): it reports the operation, so it needs {@code read}, and may
   * fence the key, a write that only a caller of tools could need, so it needs a {@code tools:}
   * scope too.
   */
  public boolean mayGiveUp() {
    return scopes.allowsRead() && scopes.allowsAnyTool();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Principal p
        && tenant.equals(p.tenant)
        && tokenId.equals(p.tokenId)
        && scopes.equals(p.scopes);
  }

  @Override
  public int hashCode() {
    return Objects.hash(tenant, tokenId, scopes);
  }

  @Override
  public String toString() {
    return "Principal["
        + tenant.map(TenantId::value).orElse("operator")
        + ", token "
        + tokenId
        + ", "
        + scopes
        + "]";
  }
}
