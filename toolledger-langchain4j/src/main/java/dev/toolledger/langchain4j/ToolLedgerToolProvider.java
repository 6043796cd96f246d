package dev.toolledger.langchain4j;

import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.invocation.InvocationParameters;
import dev.langchain4j.service.tool.ToolProvider;
import dev.langchain4j.service.tool.ToolProviderRequest;
import dev.langchain4j.service.tool.ToolProviderResult;
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
 * <p><b>Steps.</b> Each AI Service invocation is one run, named by the host (by default the
 * invocation parameter {@link #RUN_ID}); the run id is the journal's workflow id. Within the run,
 * the n-th distinct call (tool and canonical arguments) is step {@code call-n}; a call that repeats
 * an earlier one of the run is that earlier step. So:
 *
 * <ul>
 *   <li>a lost answer is retried by the client with the step's key, and replayed;
 *   <li>the model calling again after an error or an unknown outcome, or an output guardrail's
 *       reprompt, reaches the same step: the journal answers, or the client looks the key up; there
 *       is no second execution;
 *   <li>after a restart, the host invokes the AI Service again with the same run id: the run's
 *       calls map to the same steps and keys, and get the recorded outcomes replayed;
 *   <li>a replayed run whose model asks for something else at a step (other arguments) is refused
 *       with {@link dev.toolledger.client.journal.ActionConflictException}; nothing is sent.
 * </ul>
 *
 * <p><b>Not guaranteed.</b> Two deliberately identical calls in one run are one step (one effect):
 * a host that wants two identical actions runs them as two runs. With {@code
 * AiServices.executeToolsConcurrently()} the positions of the calls of one model turn follow thread
 * scheduling, so a replayed run may meet a conflict (a refusal, never a duplicate); leave it off.
 * The model's tool-call ids are not used: a model asked again mints new ones.
 *
 * <p>LangChain4j 1.19 does not retry tools itself: its retries are the model calling again after an
 * error text (the default {@code ToolExecutionErrorHandler}) and guardrail reprompts, and both
 * reach the same step as described. The executors never throw for a failure the client retried;
 * only arguments that are not a JSON object and a conflicting step end the invocation, through
 * {@link dev.langchain4j.exception.ToolArgumentsException}.
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
   * run of the agent, whose calls are numbered from {@code call-1}.
   *
   * @throws IllegalStateException when the invocation has no usable run id; no tool is offered and
   *     the invocation ends before the model is asked
   */
  @Override
  public ToolProviderResult provideTools(ToolProviderRequest request) {
    AgentRun run = new AgentRun(AgentRun.requireValid(runId.apply(request.invocationContext())));
    ToolProviderResult.Builder result = ToolProviderResult.builder();
    for (ToolSpecification tool : tools) {
      result.add(tool, new LedgerToolExecutor(client, run, tool.name()));
    }
    return result.build();
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
