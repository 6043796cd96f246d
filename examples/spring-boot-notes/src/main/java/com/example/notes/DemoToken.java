package com.example.notes;

import dev.toolledger.api.TenantId;
import dev.toolledger.embed.ToolLedger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.stereotype.Component;

/**
 * For trying the example by hand only: issues a bearer token for the tenant named by {@code
 * notes.demo-tenant} at start and prints it. A real application issues tokens where it
 * authenticates its agents ({@link ToolLedger#issueToken}), never into a log.
 */
@Component
@ConditionalOnProperty("notes.demo-tenant")
class DemoToken implements ApplicationRunner {
  private static final Logger LOG = LoggerFactory.getLogger(DemoToken.class);
  private final ToolLedger ledger;
  private final String tenant;

  DemoToken(ToolLedger ledger, org.springframework.core.env.Environment environment) {
    this.ledger = ledger;
    this.tenant = environment.getRequiredProperty("notes.demo-tenant");
  }

  @Override
  public void run(ApplicationArguments args) {
    String token = ledger.issueToken(TenantId.of(tenant), "spring-boot-notes demo");
    LOG.info("demo token for tenant {} (for trying the example only): {}", tenant, token);
  }
}
