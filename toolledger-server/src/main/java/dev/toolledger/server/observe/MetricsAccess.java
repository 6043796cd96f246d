package dev.toolledger.server.observe;

/** Who may read {@code GET /metrics}. */
public enum MetricsAccess {
  /**
   * Clients on the loopback interface without a token (a scraper or sidecar on the same host);
   * everyone else with the operator token. The default.
   */
  LOOPBACK,
  /** Only with the operator token, from anywhere. */
  OPERATOR,
  /** Anyone who can reach the port. For a scrape network you trust. */
  OPEN,
  /** Not served. */
  OFF
}
