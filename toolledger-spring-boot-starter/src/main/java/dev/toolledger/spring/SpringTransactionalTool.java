package dev.toolledger.spring;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.api.ToolDescriptor;
import dev.toolledger.api.ToolResponse;
import dev.toolledger.api.TransactionContext;
import dev.toolledger.api.TransactionalTool;
import java.util.Objects;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * A tool bean run so that Spring's data access on the application's {@code DataSource} joins the
 * ledger's transaction: while {@code execute} runs, the transaction's connection is bound to the
 * data source the way a Spring transaction binds its own ({@link TransactionSynchronizationManager}
 * and a {@link ConnectionHolder}). {@code JdbcTemplate}, {@code NamedParameterJdbcTemplate}, {@code
 * JdbcClient} and {@code DataSourceUtils} then hand the tool that connection, so its effect and the
 * record commit together or not at all.
 *
 * <p>A {@code @Transactional} method (propagation REQUIRED, the default) called by the tool joins
 * the ledger's transaction; if it marks the transaction rollback-only, the call fails and nothing
 * is recorded. REQUIRES_NEW or another data source opens a transaction the ledger does not govern.
 * A transaction the calling thread had bound already (an in-process call from a
 * {@code @Transactional} method) is set aside while the tool runs and restored afterwards: the
 * ledger's transaction is its own, on its own connection.
 */
final class SpringTransactionalTool implements TransactionalTool {
  private final TransactionalTool delegate;
  private final DataSource dataSource;

  SpringTransactionalTool(TransactionalTool delegate, DataSource dataSource) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
  }

  @Override
  public ToolDescriptor descriptor() {
    return delegate.descriptor();
  }

  @Override
  public ToolResponse execute(TransactionContext context, JsonNode parameters) throws Exception {
    LedgerConnection holder = new LedgerConnection(context);
    Object setAside = TransactionSynchronizationManager.unbindResourceIfPossible(dataSource);
    TransactionSynchronizationManager.bindResource(dataSource, holder);
    try {
      ToolResponse response = delegate.execute(context, parameters);
      if (holder.isRollbackOnly()) {
        throw new IllegalStateException(
            "tool "
                + descriptor().name()
                + " marked the transaction rollback-only; nothing was recorded");
      }
      return response;
    } finally {
      TransactionSynchronizationManager.unbindResource(dataSource);
      if (setAside != null) {
        TransactionSynchronizationManager.bindResource(dataSource, setAside);
      }
    }
  }

  @Override
  public String toString() {
    return "SpringTransactionalTool[" + descriptor().name() + "]";
  }

  /** The ledger's transaction, shown to Spring as an active transaction on the data source. */
  private static final class LedgerConnection extends ConnectionHolder {
    LedgerConnection(TransactionContext context) {
      super(context.connection());
      // Active: a @Transactional method participates instead of beginning (and committing) its own
      // transaction on this connection, which only the ledger may end.
      setTransactionActive(true);
    }
  }
}
