package dev.toolledger.core.outbox;

import java.time.Duration;
import java.util.Optional;

/** Sends one outbox event to its destination. */
@FunctionalInterface
public interface Deliverer {

  DeliveryResult deliver(OutboxEvent event);

  /** How a delivery attempt ended. */
  sealed interface DeliveryResult {
    /** The recipient acknowledged the event. */
    record Delivered() implements DeliveryResult {}

    /** A passing failure (transport, 5xx, 408, 409, 429); try again later. */
    record Retry(String reason, Optional<Duration> retryAfter) implements DeliveryResult {}

    /** The recipient refused the event for good (another 4xx); retrying will not help. */
    record Refused(String reason) implements DeliveryResult {}
  }
}
