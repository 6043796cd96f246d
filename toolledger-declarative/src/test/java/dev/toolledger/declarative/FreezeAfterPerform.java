package dev.toolledger.declarative;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.api.DownstreamStatus;
import dev.toolledger.api.EffectContext;
import dev.toolledger.api.EffectResult;
import dev.toolledger.api.ExternalTool;
import dev.toolledger.api.ToolDescriptor;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A node that dies between perform and record, as far as the ledger can tell: the real tool's call
 * completes at the upstream, then this executor stops (until the test thaws it) and records
 * nothing, so its lease runs out and another node takes over.
 */
public final class FreezeAfterPerform implements ExternalTool {
  private final ExternalTool tool;
  public final CountDownLatch performed = new CountDownLatch(1);
  private final CountDownLatch thaw = new CountDownLatch(1);

  public FreezeAfterPerform(ExternalTool tool) {
    this.tool = tool;
  }

  public void thaw() {
    thaw.countDown();
  }

  @Override
  public ToolDescriptor descriptor() {
    return tool.descriptor();
  }

  @Override
  public Duration lease() {
    return tool.lease();
  }

  @Override
  public EffectResult perform(EffectContext context, JsonNode parameters) throws Exception {
    EffectResult result = tool.perform(context, parameters);
    performed.countDown();
    thaw.await(60, TimeUnit.SECONDS);
    return result;
  }

  @Override
  public boolean supportsLookup() {
    return tool.supportsLookup();
  }

  @Override
  public DownstreamStatus lookup(EffectContext context, JsonNode parameters) throws Exception {
    return tool.lookup(context, parameters);
  }

  @Override
  public boolean idempotentDownstream() {
    return tool.idempotentDownstream();
  }
}
