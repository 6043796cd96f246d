package dev.toolledger.api;

import java.sql.Connection;

/** What a {@link ReadView} may use: the caller's tenant and a connection to the ledger database. */
public interface ReadContext {
  /** The authenticated tenant of the caller. */
  TenantId tenant();

  /** A connection for this read only; closed by the server afterwards. Do not write with it. */
  Connection connection();

  SqlDialect dialect();
}
