package dev.toolledger.core.store;

/** Work that runs inside one ledger write transaction. */
@FunctionalInterface
public interface TransactionWork<T> {
  T run(LedgerTransaction transaction) throws Exception;
}
