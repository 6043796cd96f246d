package dev.toolledger.declarative.http;

/**
 * A request that cannot be built from the parameters (a placeholder's parameter is missing or is
 * not a scalar). Nothing was sent. The message names the parameter, never its value.
 */
final class TemplateException extends Exception {
  private static final long serialVersionUID = 1L;

  TemplateException(String message) {
    super(message);
  }
}
