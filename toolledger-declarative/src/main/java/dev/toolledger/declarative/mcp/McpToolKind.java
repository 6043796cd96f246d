package dev.toolledger.declarative.mcp;

import dev.toolledger.api.Tool;
import dev.toolledger.declarative.Definition;
import dev.toolledger.declarative.DefinitionException;
import dev.toolledger.declarative.ToolKind;

/**
 * {@code kind: mcp}: a write tool of another MCP server (a program over stdio, or a Streamable HTTP
 * endpoint) exposed under ToolLedger's name, version and schema, called once per operation key. The
 * entry's fields and what each upstream answer becomes are described in {@code
 * docs/declarative-mcp-tools.md}.
 *
 * <p>{@link #define} refuses every mistake of an entry at once, each with its file, line and field,
 * and performs no I/O: the program is started (or the session opened) on the first call, or when
 * the descriptor is first asked for if the entry has no {@code parameters}. The tool it returns is
 * {@link AutoCloseable}: closing it stops the program or ends the session.
 */
public final class McpToolKind implements ToolKind {
  /** The value of {@code kind} that selects this kind. */
  public static final String NAME = "mcp";

  /** For {@link java.util.ServiceLoader}. */
  public McpToolKind() {}

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Tool define(Definition definition) throws DefinitionException {
    return McpToolReader.read(definition);
  }
}
