package dev.toolledger.server.auth;

import java.util.Objects;
import java.util.Optional;

/**
 * Operators are holders of an active token with the {@code operator} scope ({@code toolledger
 * tokens create --operator}). Unlike the shared secret, each such token is revocable on its own and
 * names its holder in the history of the operations it resolves ({@code operator:token:ID}).
 */
final class TokenOperators implements OperatorAuthenticator {
  private final Tokens tokens;

  TokenOperators(Tokens tokens) {
    this.tokens = Objects.requireNonNull(tokens, "tokens");
  }

  @Override
  public Optional<Operator> authenticate(String authorizationHeader) {
    // A tenant's token is never an operator's, whatever its other scopes.
    return tokens
        .authenticateHeader(authorizationHeader)
        .filter(Principal::isOperator)
        .map(principal -> new Operator("operator:token:" + principal.tokenId()));
  }

  /** Always: an operator token can be issued at any time, from any process sharing the ledger. */
  @Override
  public boolean configured() {
    return true;
  }
}
