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
 * For trying the example by hand only ({@code notes.print-demo-token=true}): issues a bearer token
 * for tenant {@value #TENANT} at start and prints it. A real application issues tokens where it
 * authenticates its agents ({@link ToolLedger#issueToken}), never into a log.
 */
@Component
@ConditionalOnProperty(name = "notes.print-demo-token", havingValue = "true")
class DemoToken implements ApplicationRunner {
  static final String TENANT = "demo";
  private static final Logger LOG = LoggerFactory.getLogger(DemoToken.class);
  private final ToolLedger ledger;
  private final String tenant = TENANT;

  DemoToken(ToolLedger ledger) {
    this.ledger = ledger;
  }

  @Override
  public void run(ApplicationArguments args) {
    String token = ledger.issueToken(TenantId.of(tenant), "spring-boot-notes demo");
    LOG.info("demo token for tenant {} (for trying the example only): {}", tenant, token);
  }
}
