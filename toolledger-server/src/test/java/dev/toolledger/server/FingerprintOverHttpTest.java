package dev.toolledger.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.server.Http.Reply;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Retries that differ only in spelling are the same intent; the normalization rules, over HTTP. */
class FingerprintOverHttpTest {
  @TempDir Path dir;
  ServerFixture fixture;
  String acme;

  @BeforeEach
  void start() {
    fixture = ServerFixture.start(dir);
    acme = fixture.token("acme");
  }

  @AfterEach
  void stop() {
    fixture.close();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{\"title\":\"Note\",\"body\":\"\"}",
        "{\"body\":\"\",\"title\":\"Note\"}",
        "  {\n  \"title\" : \"Note\"\n}  ",
        "{\"title\":\"\\u004eote\"}"
      })
  void spellingsOfTheSameParametersReplay(String retryBody) throws Exception {
    Reply first = Http.createNote(fixture.uri(), acme, "op-1", "{\"title\":\"Note\"}");
    Reply retry = Http.createNote(fixture.uri(), acme, "op-1", retryBody);

    assertThat(retry.status()).isEqualTo(201);
    assertThat(retry.header("Idempotent-Replayed")).isEqualTo("true");
    assertThat(retry.body()).isEqualTo(first.body());
    assertThat(fixture.notes()).isEqualTo(1);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{\"title\":\"Note \"}",
        "{\"title\":\"note\"}",
        "{\"title\":\"Note\",\"body\":\" \"}"
      })
  void anyRealDifferenceIsAConflict(String retryBody) throws Exception {
    Http.createNote(fixture.uri(), acme, "op-1", "{\"title\":\"Note\"}");
    Reply retry = Http.createNote(fixture.uri(), acme, "op-1", retryBody);

    assertThat(retry.status()).isEqualTo(422);
    assertThat(fixture.notes()).isEqualTo(1);
  }
}
