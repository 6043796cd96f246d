package dev.toolledger.core.store;

/**
 * The transaction's {@code COMMIT} was sent and its answer never came (the connection broke or its
 * read timed out): the transaction may have committed. Like any transient failure the work may run
 * again, since a fresh attempt reads the key's record under the key's lock before doing anything
 * and so finds what this one committed; but no answer may say that nothing happened.
 */
public class UncertainCommitException extends TransientStoreException {
  public UncertainCommitException(String message, Throwable cause) {
    super(message, cause);
  }
}
