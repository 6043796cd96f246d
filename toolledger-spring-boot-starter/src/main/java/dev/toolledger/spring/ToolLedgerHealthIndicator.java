package dev.toolledger.spring;

import dev.toolledger.embed.ToolLedger;
import java.util.Optional;
import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;

/**
 * The ledger in Actuator's health: UP when a probe write committed (the answer is reused for a
 * second, so a busy health endpoint is no write load), DOWN with the reason otherwise (a full disk,
 * a read-only file or standby server, a database that stayed busy). The reason holds no path and no
 * message of the driver.
 */
public final class ToolLedgerHealthIndicator extends AbstractHealthIndicator {
  private final ToolLedger ledger;

  public ToolLedgerHealthIndicator(ToolLedger ledger) {
    super("the ledger's health check failed");
    this.ledger = ledger;
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) {
    Optional<String> problem = ledger.writeProblem();
    if (problem.isPresent()) {
      builder.down().withDetail("problem", problem.get());
    } else {
      builder.up().withDetail("writable", true);
    }
  }
}
