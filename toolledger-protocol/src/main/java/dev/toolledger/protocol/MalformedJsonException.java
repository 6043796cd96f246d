package dev.toolledger.protocol;

/** A request body that is not one well-formed JSON document. */
@NotApi
public final class MalformedJsonException extends ToolLedgerException {
  public MalformedJsonException(String reason) {
    super("the body is not valid JSON: " + reason);
  }
}
