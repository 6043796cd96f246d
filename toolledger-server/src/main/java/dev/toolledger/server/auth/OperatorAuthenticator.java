package dev.toolledger.server.auth;

import java.util.Optional;

/**
 * Decides who may operate the node: read {@code /metrics} when it asks for a token, use the console
 * at {@code /console} and resolve operations of every tenant there. Operators are not tenants: a
 * tenant's bearer token never makes its holder an operator.
 *
 * <p>A node accepts operator-scoped tokens from its token store ({@link #tokens}) and, when one is
 * configured, a shared secret from the environment ({@link #sharedSecret}).
 */
public interface OperatorAuthenticator {

  /**
   * The operator an {@code Authorization: Bearer <token>} header value names, or empty when it is
   * absent, malformed or not an operator's.
   */
  Optional<Operator> authenticate(String authorizationHeader);

  /** Whether anyone can be authenticated at all; false when no operator credential is set up. */
  boolean configured();

  /** Nobody is an operator: the console and token-protected metrics refuse everyone. */
  static OperatorAuthenticator none() {
    return NoOperators.INSTANCE;
  }

  /**
   * Operators are whoever presents this secret (at least 16 characters). Only its SHA-256 is kept,
   * and comparisons take the same time whatever the guess.
   */
  static OperatorAuthenticator sharedSecret(String secret) {
    return new SharedSecretOperators(secret);
  }

  /**
   * Operators are holders of an active token with the {@code operator} scope in this token store
   * ({@code toolledger tokens create --operator}); such tokens are revocable one by one.
   */
  static OperatorAuthenticator tokens(Tokens tokens) {
    return new TokenOperators(tokens);
  }

  /** Whoever this mechanism accepts, else whoever {@code other} accepts. */
  default OperatorAuthenticator or(OperatorAuthenticator other) {
    return new EitherOperators(this, other);
  }

  /**
   * Someone acting as an operator.
   *
   * @param actor how resolutions record them in an operation's history, e.g. {@code
   *     operator:shared-secret}
   */
  record Operator(String actor) {
    public Operator {
      java.util.Objects.requireNonNull(actor, "actor");
    }
  }

  /** The mechanism with nobody in it. */
  enum NoOperators implements OperatorAuthenticator {
    INSTANCE;

    @Override
    public Optional<Operator> authenticate(String authorizationHeader) {
      return Optional.empty();
    }

    @Override
    public boolean configured() {
      return false;
    }
  }
}
