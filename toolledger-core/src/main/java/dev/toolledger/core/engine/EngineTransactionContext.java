package dev.toolledger.core.engine;

import dev.toolledger.api.Outbox;
import dev.toolledger.api.SqlDialect;
import dev.toolledger.api.TenantId;
import dev.toolledger.api.TransactionContext;
import dev.toolledger.core.store.LedgerTransaction;
import dev.toolledger.protocol.OperationKey;
import java.sql.Connection;
import java.time.Instant;

/** The context handed to a transactional tool: a view of the engine's open transaction. */
record EngineTransactionContext(
    TenantId tenant, OperationKey key, LedgerTransaction transaction, Instant now)
    implements TransactionContext {

  @Override
  public Connection connection() {
    return transaction.connection();
  }

  @Override
  public SqlDialect dialect() {
    return transaction.dialect();
  }

  @Override
  public Outbox outbox() {
    return transaction.outbox(tenant, key);
  }
}
