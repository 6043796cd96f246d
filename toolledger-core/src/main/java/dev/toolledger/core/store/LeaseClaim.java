package dev.toolledger.core.store;

import java.time.Duration;
import java.util.Objects;

/**
 * The lease part of a claim for an effect outside the database.
 *
 * @param owner the claim's owner token: the claiming node and a nonce of this claim, so that a
 *     retried claim transaction can recognise a claim it already committed
 * @param lease how long the claim holds, measured on the database's clock
 * @param parameters the validated parameters as JSON, kept so that recovery can look the effect up
 *     or perform it again
 */
public record LeaseClaim(String owner, Duration lease, String parameters) {
  public LeaseClaim {
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(lease, "lease");
    Objects.requireNonNull(parameters, "parameters");
    if (lease.isNegative() || lease.isZero()) {
      throw new IllegalArgumentException("a lease must be positive");
    }
  }
}
