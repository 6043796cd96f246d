package dev.toolledger.core.store;

/**
 * The transaction was rolled back for a reason that a fresh attempt may not meet: a busy write
 * lock, a serialization failure, a deadlock or a dropped connection. Nothing of the attempt
 * remains, so the whole transaction may run again.
 */
public class TransientStoreException extends StoreException {
  public TransientStoreException(String message, Throwable cause) {
    super(message, cause);
  }
}
