package dev.toolledger.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.api.ToolDescriptor;
import dev.toolledger.api.ToolResponse;
import dev.toolledger.api.TransactionContext;
import dev.toolledger.api.TransactionalTool;
import java.util.function.BooleanSupplier;

/**
 * Wraps a transactional tool so that, while a switch is on, it makes its effect and then throws
 * before the engine can record the outcome: the crash window between the effect and its record. The
 * engine must roll both back. A hook for tests and the demo; never wired to a request.
 */
public final class FailAfterEffect implements TransactionalTool {
  private final TransactionalTool delegate;
  private final BooleanSupplier failing;

  public FailAfterEffect(TransactionalTool delegate, BooleanSupplier failing) {
    this.delegate = delegate;
    this.failing = failing;
  }

  @Override
  public ToolDescriptor descriptor() {
    return delegate.descriptor();
  }

  @Override
  public ToolResponse execute(TransactionContext context, JsonNode parameters) throws Exception {
    ToolResponse response = delegate.execute(context, parameters);
    if (failing.getAsBoolean()) {
      throw new IllegalStateException("injected failure between the effect and its record");
    }
    return response;
  }
}
