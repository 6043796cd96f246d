package dev.toolledger.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.jdbc.Synchronous;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTTP floors answer what {@code http-replay} gets, byte for byte in body and in the headers
 * ToolLedger sets, on the node's own port, and run in the harness beside it with the server CPU
 * column. How fast is not this test's business.
 */
class HttpFloorsTest {
  @TempDir Path dir;

  @Test
  void eachFloorAnswersAReplaysAnswerOnTheNodesPort() throws Exception {
    try (Target target = Target.sqlite("floors", dir.resolve("floors.db"), Synchronous.NORMAL);
        Http1Clients http = new Http1Clients(target.app.uri())) {
      String key = target.replayKey(7);
      Http1Clients.Response replay =
          http.postReadingBody(
              0,
              "/v1/tools/create-note",
              Scenarios.replayHeaders(target, key),
              Scenarios.NOTE_BYTES);
      for (String floor : List.of(HttpFloors.SERVLET, HttpFloors.REPLAY, HttpFloors.CORE)) {
        Http1Clients.Response answer =
            http.postReadingBody(
                0,
                floor + "/v1/tools/create-note",
                Scenarios.replayHeaders(target, key),
                Scenarios.NOTE_BYTES);
        assertThat(answer.status()).as(floor).isEqualTo(replay.status()).isEqualTo(201);
        assertThat(answer.replayed()).as(floor).isEqualTo("true");
        assertThat(answer.contentType()).as(floor).isEqualTo(replay.contentType());
        assertThat(answer.body().length()).as(floor).isEqualTo(replay.body().length());
      }
      // The node still answers its own paths after the floors (on the same kept-alive socket).
      assertThat(
              http.postReadingBody(
                      0,
                      "/v1/tools/create-note",
                      Scenarios.replayHeaders(target, key),
                      Scenarios.NOTE_BYTES)
                  .body())
          .isEqualTo(replay.body());
    }
  }

  @Test
  void theReplayingFloorRunsTheReplayBeforeItAnswers() throws Exception {
    try (Target target = Target.sqlite("floors", dir.resolve("floors.db"), Synchronous.NORMAL);
        Http1Clients http = new Http1Clients(target.app.uri())) {
      // A key never recorded is executed, not replayed: the floor fails instead of answering, and
      // the trivial servlet floor, which runs nothing, answers it all the same.
      Http1Clients.Response replaying =
          http.postReadingBody(
              0,
              HttpFloors.REPLAY + "/v1/tools/create-note",
              Scenarios.replayHeaders(target, "never-recorded"),
              Scenarios.NOTE_BYTES);
      Http1Clients.Response trivial =
          http.postReadingBody(
              0,
              HttpFloors.SERVLET + "/v1/tools/create-note",
              Scenarios.replayHeaders(target, "never-recorded-either"),
              Scenarios.NOTE_BYTES);

      assertThat(replaying.status()).isEqualTo(500);
      assertThat(trivial.status()).isEqualTo(201);
    }
  }

  @Test
  void theFloorsRunInTheHarnessBesideHttpReplayWithTheServersCpu() throws Exception {
    BenchOptions options =
        new BenchOptions(
            dir,
            Optional.empty(),
            Duration.ofMillis(100),
            2,
            List.of(2),
            Optional.empty(),
            Optional.empty(),
            false,
            List.of("http-replay", "http-floor-servlet", "http-floor-replay", "http-floor-core"));
    BenchReport report =
        new Harness(options, new PrintStream(OutputStream.nullOutputStream())).run();
    assertThat(report.results)
        .filteredOn(m -> m.store.equals("sqlite-normal"))
        .extracting(m -> m.scenario)
        .containsExactly(
            "http-replay", "http-floor-servlet", "http-floor-replay", "http-floor-core");
    assertThat(report.results)
        .allSatisfy(
            m -> {
              String what = m.store + "/" + m.scenario;
              assertThat(m.failures).as("errors of %s", what).isZero();
              assertThat(m.operations).as("operations of %s", what).isPositive();
              assertThat(m.serverCpuNanos).as("server CPU of %s", what).isPositive();
            });
  }
}
