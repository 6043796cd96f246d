package dev.toolledger.api;

/** The SQL a store's connections speak, so that tools can choose portable statements. */
public enum SqlDialect {
  SQLITE,
  POSTGRESQL
}
