package dev.toolledger.server.http;

/** Whether the server can serve: typically whether the ledger's database answers. */
@FunctionalInterface
public interface HealthCheck {
  /** Returns null when healthy, otherwise a short reason (no secrets). */
  String problem();

  HealthCheck ALWAYS_UP = () -> null;
}
