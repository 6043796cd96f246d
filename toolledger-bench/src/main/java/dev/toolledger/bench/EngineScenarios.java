package dev.toolledger.bench;

import dev.toolledger.api.SqlDialect;
import dev.toolledger.core.engine.EngineConfig;
import dev.toolledger.core.engine.ExecutionOutcome;
import dev.toolledger.core.engine.LedgerEngine;
import dev.toolledger.core.engine.RateLimit;
import java.util.concurrent.atomic.AtomicLong;

/** The scenarios that call the ledger's engine in the process, and the peer's beside them. */
final class EngineScenarios {
  private EngineScenarios() {}

  /** create-note through the engine, a new key each time. */
  static DefinedScenario keyedCreate(Target target, AtomicLong keys) {
    return executing("keyed-create", target.app.engine(), target, keys);
  }

  /**
   * {@code keyed-create} with the rate limit of new operations on, as the database's default scope
   * applies it (shared buckets in the database on PostgreSQL, in memory on SQLite), at a rate never
   * reached: what counting costs a new operation. Its own engine over the same store and tools.
   */
  static DefinedScenario keyedCreateLimited(Target target, AtomicLong keys) {
    LedgerEngine.Builder builder =
        LedgerEngine.builder(target.store, target.app.engine().tools())
            .listener(target.app.engine().listener())
            .config(
                EngineConfig.builder()
                    .nodeId("bench")
                    .newOperationLimit(RateLimit.perSecond(1_000_000_000L))
                    .build());
    if (target.store.dialect() == SqlDialect.POSTGRESQL) {
      builder.sharedRateBuckets(target.store.sharedRateBuckets());
    }
    return executing("keyed-create-limited", builder.build(), target, keys);
  }

  private static DefinedScenario executing(
      String name, LedgerEngine engine, Target target, AtomicLong keys) {
    return DefinedScenario.local(
        name,
        (thread, sequence) -> {
          ExecutionOutcome outcome =
              engine.execute(Target.invocation(Scenarios.newKey(target, keys)));
          if (!(outcome instanceof ExecutionOutcome.Executed)) {
            throw new IllegalStateException(name + " answered " + outcome.kind());
          }
        });
  }

  /** Identical retries of completed operations. */
  static DefinedScenario replay(Target target) {
    return DefinedScenario.local(
        "replay",
        (thread, sequence) ->
            target.replay(
                target.replayKey(Scenarios.spread(thread, sequence, Target.REPLAY_KEYS))));
  }

  /**
   * The peer: a DBOS Transact workflow whose id is a new operation key and whose one step inserts
   * the note ({@link DbosPeer}), on the same PostgreSQL server. DBOS launches on the first call (in
   * the warm-up round), so that a run without it does not pay for its startup.
   */
  static DefinedScenario peerDbosCreate(Target target, AtomicLong keys) {
    return DefinedScenario.local(
        "peer-dbos-create",
        (thread, sequence) -> target.dbos().create(Scenarios.newKey(target, keys)));
  }

  /**
   * The peer's replay: one of {@value DbosPeer#REPLAY_IDS} completed workflow ids again, whose
   * recorded output DBOS returns without running the step; checked to be the first run's note. DBOS
   * launches on the first call, as for {@link #peerDbosCreate}.
   */
  static DefinedScenario peerDbosReplay(Target target) {
    return DefinedScenario.local(
        "peer-dbos-replay",
        (thread, sequence) -> {
          DbosPeer dbos = target.dbos();
          int i = Scenarios.spread(thread, sequence, DbosPeer.REPLAY_IDS);
          long note = dbos.create(dbos.replayId(i));
          if (note != dbos.replayNote(i)) {
            throw new IllegalStateException(
                "DBOS answered note " + note + " for a replay of note " + dbos.replayNote(i));
          }
        });
  }
}
