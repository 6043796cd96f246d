package dev.toolledger.langchain4j;

import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.invocation.InvocationParameters;
import dev.langchain4j.service.tool.ToolProvider;
import dev.langchain4j.service.tool.ToolProviderRequest;
import dev.langchain4j.service.tool.ToolProviderResult;
import dev.toolledger.client.AgentRun;
import dev.toolledger.client.ToolLedgerClient;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

/**
 * ToolLedger's tools for a LangChain4j AI Service, every call of which goes through a {@link
 * ToolLedgerClient}: journaled under one operation key per step of the agent's run before it is
 * sent, retried by the client's one retry policy with that key, and answered as completed, refused,
 * rejected or unknown.
 *
 * <pre>{@code
 * ToolLedgerToolProvider tools = ToolLedgerToolProvider.builder()
 *     .client(client)                                        // journal + transport + retry policy
 *     .tools(ToolLedgerCatalog.fetch(baseUri, token))        // names, descriptions, schemas
 *     .build();
 * Assistant assistant = AiServices.builder(Assistant.class)
 *     .chatModel(model)
 *     .toolProvider(tools)
 *     .build();
 * assistant.chat("Create a note titled Groceries",
 *     InvocationParameters.from(ToolLedgerToolProvider.RUN_ID, "request-42"));
 * }</pre>
 *
 * <p><b>Steps.</b> Each AI Service invocation is one pass of a run, named by the host (by default
 * the invocation parameter {@link #RUN_ID}); the run id is the journal's workflow id. Within the
 * pass, calls become steps by the same-action rule ({@link AgentRun}):
 *
 * <ul>
 *   <li>a lost answer is retried by the client with the step's key, and replayed;
 *   <li>the model calling again with the same tool and arguments while the step's outcome is
 *       unknown or unanswered reaches the same step: the client looks the key up, there is no
 *       second execution;
 *   <li>after a definitive outcome (completed, refused, rejected) the same call is a new action,
 *       the next step {@code call-n}, with a new key: two notes with one title are two notes;
 *   <li>after a restart, the host invokes the AI Service again with the same run id: the pass meets
 *       the journaled steps in their recorded order, so its n-th new action is step {@code call-n}
 *       with its key and recorded outcome (replayed), or the key looked up if it was unfinished;
 *   <li>a replayed run whose model asks for something else at a recorded step is refused with
 *       {@link dev.toolledger.client.journal.ActionConflictException}; nothing is sent;
 *   <li>with a chat memory, the conversation keeps each tool result with the attributes {@code
 *       toolledger.runId} and {@code toolledger.stepId}; an invocation whose conversation already
 *       holds steps of its run continues after them (the model has their results and does not ask
 *       for them again), instead of replaying them.
 * </ul>
 *
 * <p><b>Not guaranteed.</b> With {@code AiServices.executeToolsConcurrently()} the positions of the
 * calls of one model turn follow thread scheduling, so a replayed run may meet a conflict (a
 * refusal, never a duplicate); leave it off. The model's tool-call ids are not used: a model asked
 * again mints new ones.
 *
 * <p>LangChain4j 1.19 does not retry tools itself: its retries are the model calling again after an
 * error text (the default {@code ToolExecutionErrorHandler}) and guardrail reprompts, and both
 * follow the rule: a repeat of an unfinished call is the same step. The executors never throw for a
 * failure the client retried; only arguments that are not a JSON object and a conflicting step end
 * the invocation, through {@link dev.langchain4j.exception.ToolArgumentsException}.
 */
public final class ToolLedgerToolProvider implements ToolProvider {

  /** The {@link InvocationParameters} key of the run id, read by default. */
  public static final String RUN_ID = "toolledger.runId";

  private final ToolLedgerClient client;
  private final List<ToolSpecification> tools;
  private final Function<InvocationContext, String> runId;

  private ToolLedgerToolProvider(Builder builder) {
    this.client = builder.client;
    this.tools = List.copyOf(builder.tools);
    this.runId = builder.runId;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The tools offered to the model. */
  public List<ToolSpecification> tools() {
    return tools;
  }

  /**
   * Called by LangChain4j once at the start of each AI Service invocation: the invocation is a new
   * pass of the run, whose new actions take the positions {@code call-1}, {@code call-2}, ... (the
   * journaled steps of the run, if it ran before). When the conversation (a chat memory) already
   * holds tool results of this run, the pass continues after the last of them instead.
   *
   * @throws IllegalStateException when the invocation has no usable run id; no tool is offered and
   *     the invocation ends before the model is asked
   */
  @Override
  public ToolProviderResult provideTools(ToolProviderRequest request) {
    AgentRun run = startRun(runId.apply(request.invocationContext()), request.messages());
    ToolProviderResult.Builder result = ToolProviderResult.builder();
    for (ToolSpecification tool : tools) {
      result.add(tool, new LedgerToolExecutor(run, tool.name()));
    }
    return result.build();
  }

  private AgentRun startRun(String id, List<ChatMessage> conversation) {
    if (id == null || id.isBlank()) {
      throw new IllegalStateException(
          "no run id for this AI Service invocation: pass InvocationParameters.from("
              + "ToolLedgerToolProvider.RUN_ID, runId) to the AI Service method, or configure"
              + " ToolLedgerToolProvider.Builder.runId(...); the run id must be the same when the"
              + " run is replayed after a restart");
    }
    try {
      return AgentRun.continueAfter(client, id, stepsInConversation(id, conversation));
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  /**
   * How many steps of the run the conversation already holds with their results: the highest
   * position among the tool results (kept with their attributes, for example in a chat memory) that
   * name this run. Without a chat memory a new invocation holds none, and replays the run.
   */
  private static int stepsInConversation(String runId, List<ChatMessage> conversation) {
    int steps = 0;
    for (ChatMessage message : conversation) {
      if (message instanceof ToolExecutionResultMessage result
          && runId.equals(result.attributes().get(LedgerToolExecutor.ATTRIBUTE_RUN))
          && result.attributes().get(LedgerToolExecutor.ATTRIBUTE_STEP) instanceof String step) {
        steps = Math.max(steps, AgentRun.position(step));
      }
    }
    return steps;
  }

  private static String runIdParameter(InvocationContext context) {
    InvocationParameters parameters = context == null ? null : context.invocationParameters();
    if (parameters == null) {
      return null;
    }
    Object value = parameters.get(RUN_ID);
    return value == null ? null : value.toString();
  }

  /** {@link #build()} rejects missing or conflicting options and names them. */
  public static final class Builder {
    private ToolLedgerClient client;
    private final List<ToolSpecification> tools = new ArrayList<>();
    private Function<InvocationContext, String> runId = ToolLedgerToolProvider::runIdParameter;

    private Builder() {}

    /** The client whose journal, transport and retry policy every call goes through. Required. */
    public Builder client(ToolLedgerClient client) {
      this.client = client;
      return this;
    }

    /** Adds a tool, for example from {@link ToolLedgerCatalog}. At least one is required. */
    public Builder tool(ToolSpecification tool) {
      tools.add(Objects.requireNonNull(tool, "tool"));
      return this;
    }

    /** Adds tools, for example {@link ToolLedgerCatalog#fetch}'s. */
    public Builder tools(List<ToolSpecification> tools) {
      tools.forEach(this::tool);
      return this;
    }

    /**
     * How an invocation names its run. Default: the invocation parameter {@link #RUN_ID}. The id
     * must be the host's own (a request id it stored), the same when the run is replayed after a
     * restart, and new for every new user request; never one the model chose.
     */
    public Builder runId(Function<InvocationContext, String> runId) {
      this.runId = Objects.requireNonNull(runId, "runId");
      return this;
    }

    public ToolLedgerToolProvider build() {
      if (client == null) {
        throw new IllegalArgumentException(
            "client is required (a ToolLedgerClient with a journal)");
      }
      if (tools.isEmpty()) {
        throw new IllegalArgumentException(
            "at least one tool is required (for example ToolLedgerCatalog.fetch(baseUri, token))");
      }
      Set<String> names = new HashSet<>();
      for (ToolSpecification tool : tools) {
        if (!names.add(tool.name())) {
          throw new IllegalArgumentException("tool " + tool.name() + " is given twice");
        }
      }
      return new ToolLedgerToolProvider(this);
    }
  }
}
