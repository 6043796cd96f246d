package dev.toolledger.declarative;

import dev.toolledger.api.Tool;

/**
 * One kind of declared tool ({@code kind: http}, {@code kind: sql}): turns one entry of a tools
 * file into a tool, or refuses it with a {@link DefinitionException} that names the file, line and
 * field to fix.
 */
public interface ToolKind {
  /** The value of the entry's {@code kind} field that selects this kind. */
  String name();

  /** Builds the tool an entry defines; never performs I/O against the upstream or the database. */
  Tool define(Definition definition) throws DefinitionException;
}
