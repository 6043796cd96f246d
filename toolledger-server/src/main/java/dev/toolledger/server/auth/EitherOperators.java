package dev.toolledger.server.auth;

import java.util.Objects;
import java.util.Optional;

/** Operators are whoever the first mechanism accepts, else whoever the second accepts. */
record EitherOperators(OperatorAuthenticator first, OperatorAuthenticator second)
    implements OperatorAuthenticator {
  EitherOperators {
    Objects.requireNonNull(first, "first");
    Objects.requireNonNull(second, "second");
  }

  @Override
  public Optional<Operator> authenticate(String authorizationHeader) {
    return first
        .authenticate(authorizationHeader)
        .or(() -> second.authenticate(authorizationHeader));
  }

  @Override
  public boolean configured() {
    return first.configured() || second.configured();
  }
}
