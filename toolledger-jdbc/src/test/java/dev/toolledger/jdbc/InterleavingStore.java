package dev.toolledger.jdbc;

import dev.toolledger.api.SqlDialect;
import dev.toolledger.api.TenantId;
import dev.toolledger.core.operation.HistoryEntry;
import dev.toolledger.core.operation.OperationRecord;
import dev.toolledger.core.operation.Tombstone;
import dev.toolledger.core.store.ExpiredClaim;
import dev.toolledger.core.store.LedgerStore;
import dev.toolledger.core.store.TransactionWork;
import dev.toolledger.protocol.OperationKey;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A real store with a hook that runs once just before its next {@link #find}, so that a test can
 * place another node's write exactly between two of the engine's steps. Everything else goes to the
 * real database.
 */
class InterleavingStore implements LedgerStore {
  private final LedgerStore store;
  private final AtomicReference<Runnable> beforeNextFind = new AtomicReference<>();

  InterleavingStore(LedgerStore store) {
    this.store = store;
  }

  void beforeNextFind(Runnable interleaved) {
    beforeNextFind.set(interleaved);
  }

  @Override
  public SqlDialect dialect() {
    return store.dialect();
  }

  @Override
  public Optional<OperationRecord> find(TenantId tenant, OperationKey key) {
    Runnable interleaved = beforeNextFind.getAndSet(null);
    if (interleaved != null) {
      interleaved.run();
    }
    return store.find(tenant, key);
  }

  @Override
  public Optional<Tombstone> findTombstone(TenantId tenant, OperationKey key) {
    return store.findTombstone(tenant, key);
  }

  @Override
  public List<HistoryEntry> history(TenantId tenant, OperationKey key) {
    return store.history(tenant, key);
  }

  @Override
  public List<ExpiredClaim> expiredClaims(int limit) {
    return store.expiredClaims(limit);
  }

  @Override
  public <T> T inTransaction(TransactionWork<T> work) {
    return store.inTransaction(work);
  }

  @Override
  public void close() {
    store.close();
  }
}
