package dev.toolledger.declarative.http;

import dev.toolledger.api.Tool;
import dev.toolledger.declarative.Definition;
import dev.toolledger.declarative.DefinitionException;
import dev.toolledger.declarative.ToolKind;

/**
 * {@code kind: http}: an idempotent gateway to an existing REST write endpoint, declared in a tools
 * file instead of written in code. The entry's fields and what each upstream answer becomes in the
 * ledger are described in {@code docs/declarative-http-tools.md}.
 *
 * <p>{@link #define} refuses every mistake of an entry at once (unknown fields, a bad method or
 * URL, a placeholder that is not a parameter, a secret written inline instead of {@code
 * ${VARIABLE}}, an unset variable, overlapping outcome classes, bad durations), each with its file,
 * line and field. It performs no I/O: the HTTP client is created on the first call.
 */
public final class HttpToolKind implements ToolKind {
  /** The value of {@code kind} that selects this kind. */
  public static final String NAME = "http";

  /** For {@link java.util.ServiceLoader}. */
  public HttpToolKind() {}

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Tool define(Definition definition) throws DefinitionException {
    return HttpToolReader.read(definition);
  }
}
