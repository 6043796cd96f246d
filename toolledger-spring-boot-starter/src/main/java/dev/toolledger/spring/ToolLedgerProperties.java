package dev.toolledger.spring;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code toolledger.*} settings of the node the starter runs in a Spring Boot application.
 * Every property has a default; an application that sets none gets the ledger on its {@code
 * DataSource}, the HTTP API under {@value #DEFAULT_PATH} and MCP at {@value #DEFAULT_PATH}{@code
 * /mcp}. Bad values stop the start with a message naming the property.
 */
@ConfigurationProperties(prefix = "toolledger")
public class ToolLedgerProperties {
  /** Default of {@code toolledger.path}. */
  public static final String DEFAULT_PATH = "/toolledger";

  /** Default of {@code toolledger.max-request-bytes}: 64 KiB. */
  public static final int DEFAULT_MAX_REQUEST_BYTES = 65536;

  /** Whether the starter runs a ledger node at all. */
  private boolean enabled = true;

  /**
   * Path of the application's server under which the HTTP API ({@code <path>/v1/...}, {@code
   * <path>/health}) and MCP ({@code <path>/mcp}) are served. Must start with '/' and not end with
   * one.
   */
  private String path = DEFAULT_PATH;

  /** Whether the HTTP API (and MCP) are mounted on the application's server. */
  private boolean httpEnabled = true;

  /** Whether the MCP endpoint is served at {@code <path>/mcp}. */
  private boolean mcpEnabled = true;

  /** Largest request body (a tool call's JSON or an MCP message) accepted, in bytes. */
  private int maxRequestBytes = 65536; // a literal, so that the metadata shows the default

  /**
   * Browser origins (scheme://host[:port]) allowed to call the API and MCP; requests without an
   * Origin header (agents, curl) are always allowed. Empty: no browser page of another origin.
   */
  private List<String> allowedOrigins = new ArrayList<>();

  /**
   * Host names (NAME or NAME:PORT; * for any) whose requests are accepted; a request naming another
   * host is answered 421 misdirected-host (DNS rebinding). Empty: a request that arrived on a
   * loopback address must name localhost, 127.0.0.1 or [::1] (any port); others are not checked.
   */
  private List<String> allowedHosts = new ArrayList<>();

  /** This node's name in claims and logs. Default: the host name and process id. */
  private String nodeId;

  /** SQLite only: how long a writer waits for the write lock before the call is answered busy. */
  private Duration busyTimeout = Duration.ofSeconds(5);

  /**
   * PostgreSQL only: how long a call waits for a concurrent execution of the same key before it is
   * answered "in progress".
   */
  private Duration claimWait = Duration.ofSeconds(5);

  /**
   * How long an accepted bearer token is trusted without reading it again; a revoked token keeps
   * working on this node for at most this long. Zero reads it on every request.
   */
  private Duration tokenCacheTtl = Duration.ofSeconds(5);

  /** Pause between recovery passes over expired claims of external tools; zero turns it off. */
  private Duration recoveryInterval = Duration.ofSeconds(2);

  /**
   * Pause between passes of the retention sweeper (expired records become tombstones); zero turns
   * it off on this node.
   */
  private Duration sweepInterval = Duration.ofMinutes(1);

  /** Whether this node delivers outbox events (the outbox relay). */
  private boolean relayEnabled = true;

  /**
   * Record this node's retention settings over those the ledger holds (an operator changing them on
   * purpose) instead of refusing to start on a difference.
   */
  private boolean adoptLedgerSettings = false;

  /** Age from which an IN_PROGRESS operation needs attention (metrics, health details). */
  private Duration staleAfter = Duration.ofMinutes(5);

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public String getPath() {
    return path;
  }

  public void setPath(String path) {
    this.path = path;
  }

  public boolean isHttpEnabled() {
    return httpEnabled;
  }

  public void setHttpEnabled(boolean httpEnabled) {
    this.httpEnabled = httpEnabled;
  }

  public boolean isMcpEnabled() {
    return mcpEnabled;
  }

  public void setMcpEnabled(boolean mcpEnabled) {
    this.mcpEnabled = mcpEnabled;
  }

  public int getMaxRequestBytes() {
    return maxRequestBytes;
  }

  public void setMaxRequestBytes(int maxRequestBytes) {
    this.maxRequestBytes = maxRequestBytes;
  }

  public List<String> getAllowedOrigins() {
    return allowedOrigins;
  }

  public void setAllowedOrigins(List<String> allowedOrigins) {
    this.allowedOrigins = allowedOrigins;
  }

  public List<String> getAllowedHosts() {
    return allowedHosts;
  }

  public void setAllowedHosts(List<String> allowedHosts) {
    this.allowedHosts = allowedHosts;
  }

  public String getNodeId() {
    return nodeId;
  }

  public void setNodeId(String nodeId) {
    this.nodeId = nodeId;
  }

  public Duration getBusyTimeout() {
    return busyTimeout;
  }

  public void setBusyTimeout(Duration busyTimeout) {
    this.busyTimeout = busyTimeout;
  }

  public Duration getClaimWait() {
    return claimWait;
  }

  public void setClaimWait(Duration claimWait) {
    this.claimWait = claimWait;
  }

  public Duration getTokenCacheTtl() {
    return tokenCacheTtl;
  }

  public void setTokenCacheTtl(Duration tokenCacheTtl) {
    this.tokenCacheTtl = tokenCacheTtl;
  }

  public Duration getRecoveryInterval() {
    return recoveryInterval;
  }

  public void setRecoveryInterval(Duration recoveryInterval) {
    this.recoveryInterval = recoveryInterval;
  }

  public Duration getSweepInterval() {
    return sweepInterval;
  }

  public void setSweepInterval(Duration sweepInterval) {
    this.sweepInterval = sweepInterval;
  }

  public boolean isRelayEnabled() {
    return relayEnabled;
  }

  public void setRelayEnabled(boolean relayEnabled) {
    this.relayEnabled = relayEnabled;
  }

  public boolean isAdoptLedgerSettings() {
    return adoptLedgerSettings;
  }

  public void setAdoptLedgerSettings(boolean adoptLedgerSettings) {
    this.adoptLedgerSettings = adoptLedgerSettings;
  }

  public Duration getStaleAfter() {
    return staleAfter;
  }

  public void setStaleAfter(Duration staleAfter) {
    this.staleAfter = staleAfter;
  }

  /**
   * The mount path, checked.
   *
   * @throws IllegalArgumentException naming {@code toolledger.path}
   */
  String checkedPath() {
    if (path == null
        || !path.startsWith("/")
        || path.length() < 2
        || path.endsWith("/")
        || path.contains("*")
        || path.contains("//")) {
      throw new IllegalArgumentException(
          "toolledger.path must start with '/', name at least one segment and not end with '/'"
              + " (for example /toolledger); it is '"
              + path
              + "'");
    }
    return path;
  }
}
