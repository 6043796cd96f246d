package dev.toolledger.server.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.protocol.Json;
import dev.toolledger.server.answer.Answer;
import dev.toolledger.server.answer.Answers;
import dev.toolledger.server.answer.Channel;
import dev.toolledger.server.answer.OutcomeSamples;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * MCP frames every answer the ledger gives, each variant of {@link Answer} included: an error
 * exactly when HTTP's status is 400 or more, the problem type, state and wait in {@code _meta}, and
 * an object as {@code structuredContent}.
 */
class EveryAnswerFramesOverMcpTest {

  @Test
  void theSamplesHoldEveryKindOfAnswer() {
    assertThat(OutcomeSamples.answers(Channel.MCP).stream().map(Object::getClass).distinct())
        .containsExactlyInAnyOrderElementsOf(Arrays.asList(Answer.class.getPermittedSubclasses()));
  }

  @Test
  void everyAnswerIsFramedWithItsErrorFlagTypeStateAndWait() {
    for (Answer answer : OutcomeSamples.answers(Channel.MCP)) {
      CallToolResult result = McpResults.of(answer, OutcomeSamples.KEY);
      Map<String, Object> meta = result.meta();
      String about = answer.toString();

      assertThat(result.isError()).as(about).isEqualTo(answer.status() >= 400);
      assertThat(result.structuredContent()).as(about).isInstanceOf(JsonNode.class);
      assertThat(((JsonNode) result.structuredContent()).isObject()).as(about).isTrue();
      JsonNode text = Json.parse(((TextContent) result.content().get(0)).text());
      assertThat(text).as(about).isNotNull();
      assertThat(meta.get(McpConventions.STATE))
          .as(about)
          .isEqualTo(answer.state().map(Enum::name).orElse(null));
      assertThat(meta.get(McpConventions.RETRY_AFTER_SECONDS))
          .as(about)
          .isEqualTo(answer.retryAfter().map(d -> d.toSeconds()).orElse(null));
      if (answer instanceof Answer.Refused refused) {
        assertThat(meta.get(McpConventions.PROBLEM_TYPE))
            .isEqualTo(refused.problem().type().uri().toString());
        assertThat(meta.get(McpConventions.OPERATION_KEY)).isEqualTo(OutcomeSamples.KEY.value());
        assertThat(text.path("detail").asText()).isEqualTo(refused.problem().detail());
      }
      if (answer instanceof Answer.Recorded recorded) {
        assertThat(meta.get(McpConventions.REPLAYED)).isEqualTo(recorded.replayed());
        assertThat(meta.get(McpConventions.STATUS)).isEqualTo(recorded.status());
      }
    }
  }

  @Test
  void theWordsNameTheLookupToolByItsProtocolName() {
    String unknown =
        McpResults.of(
                new dev.toolledger.core.engine.ExecutionOutcome.OutcomeUnknown(
                    OutcomeSamples.RECORD),
                OutcomeSamples.KEY)
            .content()
            .toString();
    String internal =
        McpResults.of(
                Answers.of(new IllegalStateException("a bug"), Channel.MCP), OutcomeSamples.KEY)
            .content()
            .toString();

    assertThat(unknown).contains("the " + McpConventions.GET_OPERATION + " tool");
    assertThat(internal).contains(McpConventions.GET_OPERATION);
  }
}
