package dev.toolledger.core.store;

/**
 * The ledger's storage could not be written or read: a disk I/O error, a read-only, missing or
 * replaced database file, a full disk, a database server that refuses writes. The transaction was
 * rolled back and nothing was recorded, so the caller may retry with the same key once the storage
 * is back; the store throws away whatever the failure may have poisoned (pooled connections,
 * prepared statements) and recovers by itself, without a restart.
 *
 * <p>Recognised by SQLState or vendor code, never by message text. Not a {@link
 * TransientStoreException}: an immediate retry would most likely meet the same fault, so the engine
 * answers at once instead of spending its retry budget.
 */
public class StoreUnavailableException extends StoreException {
  public StoreUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
