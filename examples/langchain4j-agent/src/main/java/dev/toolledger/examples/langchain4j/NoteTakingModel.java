package dev.toolledger.examples.langchain4j;

import com.fasterxml.jackson.databind.JsonNode;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.toolledger.protocol.Json;
import java.io.PrintStream;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A stand-in for a real model, so the example needs no API key and behaves the same every time. It
 * implements LangChain4j's own {@link ChatModel}, so the AI Service runs its real tool loop:
 *
 * <ul>
 *   <li>asked "Create a note titled 'X'", it calls {@code create-note} with {@code {"title":"X"}}
 *       under a fresh tool-call id, as a real model would; asked for "two notes titled 'X'", it
 *       calls it a second time, with the same arguments, once the first is done;
 *   <li>given the tool's result, it answers the user from it, and says so plainly when the outcome
 *       is unknown instead of claiming success.
 * </ul>
 *
 * Swap it for a real model (for example {@code OpenAiChatModel}) without changing anything else.
 */
final class NoteTakingModel implements ChatModel {
  private static final Pattern TITLE = Pattern.compile("titled '([^']+)'");
  private static final Pattern TWO = Pattern.compile("\\btwo notes\\b");

  private final PrintStream out;

  NoteTakingModel(PrintStream out) {
    this.out = out;
  }

  @Override
  public ChatResponse doChat(ChatRequest request) {
    List<ChatMessage> messages = request.messages();
    ChatMessage last = messages.get(messages.size() - 1);
    UserMessage user = lastUserMessage(messages);
    Matcher title = TITLE.matcher(user.singleText());
    int wanted = TWO.matcher(user.singleText()).find() ? 2 : 1;
    AiMessage reply;
    if (last instanceof ToolExecutionResultMessage result) {
      out.println("   model is given: " + result.text());
    }
    if (!title.find()) {
      reply = AiMessage.from("Which title should the note have?");
    } else if (last instanceof UserMessage
        || (last instanceof ToolExecutionResultMessage result
            && completed(result)
            && resultsSince(messages, user) < wanted)) {
      String arguments = Json.write(Json.object().put("title", title.group(1)));
      String id = "call_" + UUID.randomUUID().toString().substring(0, 8);
      out.println("   model asks for create-note " + arguments + " (its tool-call id: " + id + ")");
      reply =
          AiMessage.from(
              ToolExecutionRequest.builder()
                  .id(id)
                  .name("create-note")
                  .arguments(arguments)
                  .build());
    } else if (last instanceof ToolExecutionResultMessage result) {
      reply = AiMessage.from(answer(Json.parse(result.text())));
    } else {
      reply = AiMessage.from("I have nothing to add.");
    }
    return ChatResponse.builder().aiMessage(reply).build();
  }

  private static UserMessage lastUserMessage(List<ChatMessage> messages) {
    for (int i = messages.size() - 1; i >= 0; i--) {
      if (messages.get(i) instanceof UserMessage user) {
        return user;
      }
    }
    throw new IllegalStateException("no user message");
  }

  private static int resultsSince(List<ChatMessage> messages, UserMessage user) {
    int results = 0;
    for (int i = messages.size() - 1; i >= 0 && messages.get(i) != user; i--) {
      if (messages.get(i) instanceof ToolExecutionResultMessage) {
        results++;
      }
    }
    return results;
  }

  private static boolean completed(ToolExecutionResultMessage result) {
    return "completed".equals(Json.parse(result.text()).path("outcome").asText());
  }

  private static String answer(JsonNode result) {
    return switch (result.path("outcome").asText()) {
      case "completed" ->
          "Note #"
              + result.path("result").path("id").asText()
              + " '"
              + result.path("result").path("title").asText()
              + "' is saved.";
      case "unknown" ->
          "I could not confirm that the note was saved. I will not create it again; it is"
              + " being checked.";
      default -> "The note was not saved: " + result.path("problem").path("detail").asText();
    };
  }
}
