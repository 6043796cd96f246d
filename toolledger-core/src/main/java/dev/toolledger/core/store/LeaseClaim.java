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
 * @param downstreamKey the key the effect is sent downstream with, stored with the claim so that
 *     recovery and a takeover send the same one whatever the installation derives later; null
 *     stores none
 */
public record LeaseClaim(String owner, Duration lease, String parameters, String downstreamKey) {
  /** A claim that stores no downstream key. */
  public LeaseClaim(String owner, Duration lease, String parameters) {
    this(owner, lease, parameters, null);
  }

  public LeaseClaim {
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(lease, "lease");
    Objects.requireNonNull(parameters, "parameters");
    if (lease.isNegative() || lease.isZero()) {
      throw new IllegalArgumentException("a lease must be positive");
    }
  }
}
