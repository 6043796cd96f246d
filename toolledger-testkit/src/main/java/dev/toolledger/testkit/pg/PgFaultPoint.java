package dev.toolledger.testkit.pg;

/** Where on a PostgreSQL connection {@link PgFaultProxy} breaks or stalls the link. */
public enum PgFaultPoint {
  /**
   * When the client sends a statement: the statement (with everything the client sent in the same
   * round trip) never reaches the server.
   */
  BEFORE_STATEMENT,

  /**
   * When the client sends a statement while the server reported an open transaction (after the
   * {@code BEGIN} and the statements that came with it): the statement never reaches the server,
   * and the server is left with an open transaction that it rolls back once it sees the link go.
   */
  MID_TRANSACTION,

  /**
   * When the client sends a {@code COMMIT}: the round trip that carries it reaches the server,
   * which commits and answers, and the answer never reaches the client (reset), or reaches it only
   * once the proxy heals (stall). The transaction is committed; the client cannot know.
   */
  AFTER_COMMIT_SENT
}
