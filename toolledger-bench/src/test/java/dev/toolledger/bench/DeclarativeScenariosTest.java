package dev.toolledger.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.core.engine.ExecutionOutcome;
import dev.toolledger.core.engine.Invocation;
import dev.toolledger.jdbc.Synchronous;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.OperationKey;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The declarative scenarios do the work they claim, on a real node (SQLite file, Jetty) and the
 * real in-process upstream over real sockets: each {@code decl-http-create} call is one new
 * operation of the {@code kind: http} tool and one effect upstream, each {@code
 * decl-upstream-direct} call one effect upstream and none in the ledger; the upstream honours
 * {@code Idempotency-Key}.
 */
class DeclarativeScenariosTest {
  private static final int CALLS = 25;

  @TempDir Path dir;
  private Target target;
  private final AtomicLong keys = new AtomicLong();

  @BeforeEach
  void openTarget() {
    target = Target.sqlite("sqlite-full", dir.resolve("decl.db"), Synchronous.FULL);
  }

  @AfterEach
  void closeTarget() {
    target.close();
  }

  @Test
  void eachDeclarativeCallIsOneNewOperationAndOneEffectUpstream() throws Exception {
    long operations = operationsOfTheRemoteTool();
    try (DefinedScenario scenario = HttpScenarios.declarativeCreate(target, keys)) {
      for (int i = 0; i < CALLS; i++) {
        scenario.run(i % 2, i);
      }
    }
    assertThat(target.upstream.effects()).isEqualTo(CALLS);
    assertThat(target.upstream.calls()).isEqualTo(CALLS);
    assertThat(operationsOfTheRemoteTool()).isEqualTo(operations + CALLS);
  }

  @Test
  void eachDirectCallIsOneEffectUpstreamAndNothingInTheLedger() throws Exception {
    long operations = operationsOfTheRemoteTool();
    try (DefinedScenario scenario = HttpScenarios.upstreamDirect(target, keys)) {
      for (int i = 0; i < CALLS; i++) {
        scenario.run(i % 2, i);
      }
    }
    assertThat(target.upstream.effects()).isEqualTo(CALLS);
    assertThat(operationsOfTheRemoteTool()).isEqualTo(operations);
  }

  @Test
  void eachFloorCallIsOneEffectUpstreamBetweenAClaimAndItsCompletionAndNothingInTheLedger()
      throws Exception {
    long operations = operationsOfTheRemoteTool();
    try (DefinedScenario scenario = FloorScenarios.declarativeFloor(target, keys)) {
      for (int i = 0; i < CALLS; i++) {
        scenario.run(i % 2, i);
      }
    }
    assertThat(target.upstream.effects()).isEqualTo(CALLS);
    assertThat(operationsOfTheRemoteTool()).isEqualTo(operations);
    try (var connection = target.store.dataSource().getConnection();
        var st = connection.createStatement();
        var rs =
            st.executeQuery(
                "SELECT COUNT(*), SUM(CASE WHEN state = 'COMPLETED' AND response_body LIKE '%id%'"
                    + " THEN 1 ELSE 0 END) FROM bench_floor WHERE tool = 'create-remote-note'")) {
      rs.next();
      assertThat(rs.getLong(1)).isEqualTo(CALLS);
      assertThat(rs.getLong(2)).isEqualTo(CALLS);
    }
  }

  @Test
  void aRetryThroughTheLedgerIsReplayedWithoutCallingTheUpstreamAgain() {
    Invocation invocation =
        Invocation.of(
            Target.TENANT, OperationKey.of("retry-1"), Target.REMOTE_TOOL, Json.parse(Target.NOTE));
    ExecutionOutcome first = target.app.engine().execute(invocation);
    ExecutionOutcome again = target.app.engine().execute(invocation);

    assertThat(first).isInstanceOf(ExecutionOutcome.Executed.class);
    assertThat(again).isInstanceOf(ExecutionOutcome.Replayed.class);
    assertThat(target.upstream.effects()).isEqualTo(1);
    assertThat(target.upstream.calls()).isEqualTo(1);
  }

  @Test
  void theUpstreamMakesOneEffectPerKeyAndRefusesACallWithoutOne() throws Exception {
    byte[] note = Target.NOTE.getBytes(StandardCharsets.UTF_8);
    try (Http1Clients http = new Http1Clients(target.upstream.uri())) {
      Map<String, String> keyed =
          Map.of("Idempotency-Key", "same", "Content-Type", "application/json");
      Http1Clients.Response first = http.postReadingBody(0, NotesUpstream.PATH, keyed, note);
      Http1Clients.Response second = http.postReadingBody(0, NotesUpstream.PATH, keyed, note);
      Http1Clients.Response unkeyed =
          http.post(0, NotesUpstream.PATH, Map.of("Content-Type", "application/json"), note);

      assertThat(first.status()).isEqualTo(201);
      assertThat(second.body()).isEqualTo(first.body());
      assertThat(unkeyed.status()).isEqualTo(400);
    }
    assertThat(target.upstream.effects()).isEqualTo(1);
  }

  private long operationsOfTheRemoteTool() throws Exception {
    try (var connection = target.store.dataSource().getConnection();
        var st = connection.createStatement();
        var rs =
            st.executeQuery(
                "SELECT COUNT(*) FROM tl_operations WHERE tool = '"
                    + Target.REMOTE_TOOL
                    + "' AND state = 'COMPLETED'")) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
