package dev.toolledger.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.protocol.Json;
import dev.toolledger.server.answer.Answer;
import dev.toolledger.server.answer.Channel;
import dev.toolledger.server.answer.OutcomeSamples;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * HTTP frames every answer the ledger gives, each variant of {@link Answer} included: the status,
 * the RFC 9457 document with its stable type, Retry-After and Idempotent-Replayed as the answer
 * says.
 */
class EveryAnswerFramesOverHttpTest {

  @Test
  void theSamplesHoldEveryKindOfAnswer() {
    assertThat(OutcomeSamples.answers(Channel.HTTP).stream().map(Object::getClass).distinct())
        .containsExactlyInAnyOrderElementsOf(Arrays.asList(Answer.class.getPermittedSubclasses()));
  }

  @Test
  void everyAnswerIsFramedWithItsStatusTypeAndHeaders() {
    List<Answer> answers = OutcomeSamples.answers(Channel.HTTP);
    for (Answer answer : answers) {
      HttpFrame frame = HttpFrame.of(answer);
      String about = answer.toString();

      assertThat(frame.status()).as(about).isEqualTo(answer.status());
      assertThat(frame.contentType())
          .as(about)
          .isEqualTo(answer.status() >= 400 ? "application/problem+json" : "application/json");
      assertThat(frame.headers().get("Retry-After"))
          .as(about)
          .isEqualTo(answer.retryAfter().map(d -> Long.toString(d.toSeconds())).orElse(null));
      JsonNode body = Json.parse(frame.body());
      if (answer instanceof Answer.Recorded recorded) {
        assertThat(frame.headers())
            .containsEntry("Idempotent-Replayed", Boolean.toString(recorded.replayed()));
        assertThat(frame.body()).isEqualTo(recorded.response().body());
      } else {
        assertThat(frame.headers()).doesNotContainKey("Idempotent-Replayed");
      }
      if (answer instanceof Answer.Refused refused) {
        assertThat(body.path("type").asText()).isEqualTo(refused.problem().type().uri().toString());
        assertThat(body.path("status").asInt()).isEqualTo(answer.status());
        assertThat(body.path("detail").asText()).isEqualTo(refused.problem().detail());
      }
      if (answer instanceof Answer.Found found) {
        assertThat(body).isEqualTo(found.body());
      }
    }
  }
}
