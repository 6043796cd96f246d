package dev.toolledger.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.dbos.transact.DBOS;
import dev.dbos.transact.config.DBOSConfig;
import dev.dbos.transact.context.WorkflowOptions;
import dev.dbos.transact.txstep.JdbcStepFactory;
import dev.dbos.transact.workflow.Workflow;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.sql.DataSource;

/**
 * The peer the harness measures beside the ledger: DBOS Transact for Java on the same PostgreSQL
 * server, a workflow whose id is the operation key and whose one step, a transactional step, writes
 * what the harness's {@code create-note} writes ({@link BenchNoteTool}: {@code bare-insert}'s one
 * statement, into the same table, through the same pool) and records its output in that same
 * transaction. DBOS keeps its system tables and its step outputs in a schema of its own ({@code
 * dbos_bench_<random>}), with a connection pool of its own of the ledger's size, and the schema is
 * dropped by {@link #close()}.
 *
 * <p>What it guarantees, as DBOS documents it: a workflow id runs to completion once, and calling
 * it again returns the recorded output without running it; a transactional step's output commits
 * with the step's own writes, so the note is written once. It does not compare a second call's
 * arguments with the first's (PeerDbosTest shows it).
 */
final class DbosPeer implements AutoCloseable {
  /** How many completed workflow ids {@code peer-dbos-replay} cycles through, as {@code replay}. */
  static final int REPLAY_IDS = Target.REPLAY_KEYS;

  /** The workflow: one step, the note's insert. Public so that DBOS's proxy may call it. */
  public interface NoteWorkflows {
    long createNote(String title, String body) throws SQLException;
  }

  /**
   * The workflow's implementation: its step is a DBOS transactional step ({@link JdbcStepFactory}),
   * which commits the step's output in the same transaction as the note, so the note is written
   * exactly once, the same guarantee the ledger gives an effect in its transaction.
   */
  public static final class NoteWorkflowsImpl implements NoteWorkflows {
    private final JdbcStepFactory steps;

    NoteWorkflowsImpl(JdbcStepFactory steps) {
      this.steps = steps;
    }

    @Workflow(name = "create-note")
    @Override
    public long createNote(String title, String body) throws SQLException {
      JdbcStepFactory.TransactionalFunction<Long, SQLException> insert =
          connection -> insert(connection, title, body);
      return steps.txStep(insert, "insert-note");
    }

    /**
     * What the harness's {@code create-note} writes ({@link BenchNoteTool}): exactly {@code
     * bare-insert}'s statement, so both designs do the same effect. Returns the note's id.
     */
    private static long insert(Connection connection, String title, String body)
        throws SQLException {
      try {
        return FloorScenarios.insertNote(
            connection, Target.TENANT.value(), title, body, System.currentTimeMillis());
      } catch (SQLException e) {
        throw e;
      } catch (Exception e) {
        throw new SQLException("could not insert the note", e);
      }
    }
  }

  final String runId = Target.randomHex(4);
  private final String url;
  private final String schema;
  private final HikariDataSource system;
  private final DBOS dbos;
  private final NoteWorkflows workflows;
  private final long[] replayNotes = new long[REPLAY_IDS];

  /**
   * Launches DBOS on {@code url} (a PgJDBC URL of a user that may create a schema), with its system
   * schema a new one, and completes {@link #REPLAY_IDS} workflows for the replay scenario.
   *
   * @param notes where the step inserts the note (the ledger's store, whose schema has {@code
   *     notes})
   * @param poolSize the size of DBOS's own pool (the ledger's, for a like-for-like comparison)
   */
  DbosPeer(String url, DataSource notes, int poolSize) {
    this.url = url;
    this.schema = "dbos_bench_" + Target.randomHex(4);
    HikariConfig pool = new HikariConfig();
    pool.setJdbcUrl(url);
    pool.setMaximumPoolSize(poolSize);
    pool.setPoolName("dbos-bench");
    this.system = new HikariDataSource(pool);
    DBOS started = null;
    try {
      // DBOS's admin server is off by default (DBOSConfig.defaults), as the run needs.
      started =
          new DBOS(
              DBOSConfig.defaults("toolledger-bench")
                  .withDataSource(system)
                  .withDatabaseSchema(schema));
      this.dbos = started;
      // Its table of step outputs (tx_step_outputs) goes in DBOS's schema, in the same database
      // as the notes, so that it commits with them.
      JdbcStepFactory steps = new JdbcStepFactory(started, notes, schema);
      this.workflows = started.registerProxy(NoteWorkflows.class, new NoteWorkflowsImpl(steps));
      started.launch();
      prepareReplays();
    } catch (RuntimeException e) {
      if (started != null) {
        started.close();
      }
      system.close();
      dropSchema();
      throw e;
    }
  }

  /** Runs the workflow under {@code workflowId}: a first run inserts, a second replays. */
  long create(String workflowId) {
    return createWithTitle(workflowId, "benchmark note");
  }

  /** Runs {@code workflowId} with the given title (the scenarios always send the same one). */
  long createWithTitle(String workflowId, String title) {
    try (var context = new WorkflowOptions(workflowId).setContext()) {
      return workflows.createNote(title, "a note of ordinary size");
    } catch (SQLException e) {
      throw new IllegalStateException("DBOS's step could not insert the note: " + e, e);
    }
  }

  String replayId(int i) {
    return "dbos-replay-" + runId + "-" + i;
  }

  /** The note id the first run of replay id {@code i} returned. */
  long replayNote(int i) {
    return replayNotes[i];
  }

  private void prepareReplays() {
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int i = 0; i < REPLAY_IDS; i++) {
        int n = i;
        done.add(pool.submit(() -> replayNotes[n] = create(replayId(n))));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } catch (Exception e) {
      throw new IllegalStateException("could not prepare DBOS's replay workflows: " + e, e);
    } finally {
      pool.shutdownNow();
    }
  }

  @Override
  public void close() {
    try {
      dbos.close();
    } finally {
      system.close();
      dropSchema();
    }
  }

  private void dropSchema() {
    try (Connection admin = DriverManager.getConnection(url);
        Statement st = admin.createStatement()) {
      st.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    } catch (SQLException e) {
      System.err.println("toolledger bench: could not drop DBOS's schema " + schema);
    }
  }
}
