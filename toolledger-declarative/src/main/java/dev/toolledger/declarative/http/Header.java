package dev.toolledger.declarative.http;

/**
 * A header sent with every request, its value resolved from the environment when it was written
 * with {@code ${VARIABLE}}. {@link #toString()} never shows a value: any of them may be a secret.
 */
record Header(String name, String value) {
  @Override
  public String toString() {
    return name + ": ***";
  }
}
