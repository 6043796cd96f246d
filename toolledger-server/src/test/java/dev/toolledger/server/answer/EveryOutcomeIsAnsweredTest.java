package dev.toolledger.server.answer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.core.engine.ExecutionOutcome;
import dev.toolledger.core.operation.OperationRecord;
import dev.toolledger.protocol.ProblemType;
import java.lang.reflect.RecordComponent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every variant of the engine's sealed {@link ExecutionOutcome} has a complete answer of its own,
 * the same over HTTP and MCP but for its words. Java 17 cannot switch over a sealed type, so this
 * test is what fails when a variant is added to the engine and not to {@link Answers}.
 */
class EveryOutcomeIsAnsweredTest {

  static Stream<Arguments> outcomesOnEachChannel() {
    return OutcomeSamples.outcomes().stream()
        .flatMap(
            outcome ->
                Arrays.stream(Channel.values())
                    .map(
                        channel ->
                            Arguments.of(outcome.getClass().getSimpleName(), outcome, channel)));
  }

  @Test
  void theSamplesCoverTheWholeSealedHierarchy() {
    assertThat(OutcomeSamples.variants())
        .as("ExecutionOutcome's variants")
        .hasSizeGreaterThanOrEqualTo(13)
        .doesNotHaveDuplicates()
        .allMatch(Class::isRecord);
  }

  @ParameterizedTest(name = "{0} over {2}")
  @MethodSource("outcomesOnEachChannel")
  void everyOutcomeHasACompleteAnswer(String variant, ExecutionOutcome outcome, Channel channel) {
    Answer answer = Answers.of(outcome, channel);

    assertThat(answer.status()).as("status").isBetween(200, 599);
    if (answer instanceof Answer.Refused refused) {
      ProblemType type = refused.problem().type();
      assertThat(refused.status()).as("status of %s", type).isEqualTo(type.status());
      assertThat(refused.problem().toJson().path("title").asText()).isEqualTo(type.title());
      assertThat(refused.problem().detail())
          .as("detail")
          .isNotBlank()
          .doesNotContain("null")
          .doesNotContain("PT7S");
    } else {
      assertThat(answer)
          .as("only a recorded outcome may be answered as one")
          .isInstanceOf(Answer.Recorded.class);
      assertThat(components(outcome, OperationRecord.class)).isNotEmpty();
    }
    // Whatever wait the engine named, the caller is told, in the same seconds on both channels.
    List<Object> waits = components(outcome, Duration.class);
    if (waits.isEmpty()) {
      assertThat(answer.retryAfter()).as("Retry-After").isEmpty();
    } else {
      assertThat(answer.retryAfter()).as("Retry-After").contains((Duration) waits.get(0));
    }
  }

  @ParameterizedTest
  @EnumSource(Channel.class)
  void noTwoOutcomesShareAnAnswer(Channel channel) {
    List<String> signatures =
        OutcomeSamples.outcomes().stream()
            .map(outcome -> signature(Answers.of(outcome, channel)))
            .toList();

    assertThat(signatures).doesNotHaveDuplicates().hasSameSizeAs(OutcomeSamples.variants());
  }

  @Test
  void httpAndMcpDifferInWordsOnly() {
    for (ExecutionOutcome outcome : OutcomeSamples.outcomes()) {
      Answer http = Answers.of(outcome, Channel.HTTP);
      Answer mcp = Answers.of(outcome, Channel.MCP);
      assertThat(signature(mcp)).as(outcome.kind()).isEqualTo(signature(http));
      assertThat(mcp.status()).isEqualTo(http.status());
      assertThat(mcp.state()).isEqualTo(http.state());
      assertThat(mcp.retryAfter()).isEqualTo(http.retryAfter());
      if (http instanceof Answer.Refused refused) {
        assertThat(((Answer.Refused) mcp).problem().extensions())
            .isEqualTo(refused.problem().extensions());
      }
    }
  }

  @Test
  void everyFailureKindHasItsOwnAnswerAndTheUnknownOnesAreInternal() {
    List<ProblemType> types = new ArrayList<>();
    for (RuntimeException failure : OutcomeSamples.failures()) {
      for (Channel channel : Channel.values()) {
        Answer.Refused refused = (Answer.Refused) Answers.of(failure, channel);
        assertThat(refused.problem().detail()).isNotBlank().doesNotContain(failure.getMessage());
        if (channel == Channel.HTTP) {
          types.add(refused.problem().type());
        }
      }
    }
    assertThat(types)
        .containsExactly(
            ProblemType.TOOL_FAILED,
            ProblemType.STORE_BUSY,
            ProblemType.STORE_UNAVAILABLE,
            ProblemType.INTERNAL);
  }

  /** What a client dispatches on: recorded (and whether replayed) or the problem type. */
  private static String signature(Answer answer) {
    if (answer instanceof Answer.Recorded recorded) {
      return "recorded replayed=" + recorded.replayed();
    }
    return ((Answer.Refused) answer).problem().type().slug();
  }

  private static List<Object> components(ExecutionOutcome outcome, Class<?> type) {
    List<Object> values = new ArrayList<>();
    for (RecordComponent component : outcome.getClass().getRecordComponents()) {
      if (component.getType() == type) {
        try {
          values.add(component.getAccessor().invoke(outcome));
        } catch (ReflectiveOperationException e) {
          throw new AssertionError(e);
        }
      }
    }
    return values;
  }
}
