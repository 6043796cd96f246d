package dev.toolledger.embed;

/**
 * Who may read {@code GET /metrics} (Prometheus text) on the ledger's own listener ({@link
 * ToolLedger.Builder#http}). A mounted ledger ({@link ToolLedger.Builder#mountedHttp}) serves no
 * {@code /metrics}: its meters go to the application's registry ({@link
 * ToolLedger.Builder#meterRegistry}).
 */
public enum MetricsAccess {
  /**
   * Clients on the loopback interface without a token (a scraper or sidecar on the same host);
   * everyone else with an operator token or the operator secret. The default.
   */
  LOOPBACK,
  /** Only with an operator token or the operator secret, from anywhere. */
  OPERATOR,
  /** Anyone who can reach the port. For a scrape network you trust. */
  OPEN,
  /** Not served. */
  OFF
}
