package dev.toolledger.core.auth;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** Storage of bearer-token grants, looked up by the hash of the presented token. */
public interface TokenStore {

  void insert(TokenRecord token);

  Optional<TokenRecord> findBySecretHash(String secretHash);

  List<TokenRecord> list();

  /** Revokes a token; returns true when an active token with that id existed and is now revoked. */
  boolean revoke(String id, Instant at);
}
