package dev.toolledger.langchain4j;

/** The tool list could not be read from the server; the message says why, without the token. */
public final class ToolCatalogException extends RuntimeException {
  public ToolCatalogException(String message, Throwable cause) {
    super(message, cause);
  }
}
