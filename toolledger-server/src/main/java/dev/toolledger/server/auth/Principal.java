package dev.toolledger.server.auth;

import dev.toolledger.core.identity.TenantId;
import java.util.Objects;

/** Who is calling, as established by a bearer token: the tenant and the token's public id. */
public record Principal(TenantId tenant, String tokenId) {
  public Principal {
    Objects.requireNonNull(tenant, "tenant");
    Objects.requireNonNull(tokenId, "tokenId");
  }
}
