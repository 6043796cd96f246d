package dev.toolledger.server.answer;

import dev.toolledger.api.TenantId;
import dev.toolledger.core.engine.ExecutionOutcome;
import dev.toolledger.core.engine.ToolExecutionException;
import dev.toolledger.core.fingerprint.Fingerprint;
import dev.toolledger.core.operation.OperationIntent;
import dev.toolledger.core.operation.OperationRecord;
import dev.toolledger.core.operation.Tombstone;
import dev.toolledger.core.schema.Violation;
import dev.toolledger.core.store.StoreUnavailableException;
import dev.toolledger.core.store.TransientStoreException;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.protocol.OperationState;
import dev.toolledger.protocol.StoredResponse;
import java.lang.reflect.Constructor;
import java.lang.reflect.RecordComponent;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One instance of every {@link ExecutionOutcome} variant, found by reflection over the sealed
 * hierarchy, so that a variant added to the engine shows up in the answer tests without anyone
 * remembering to add it. Each record component gets a sample value by its type; a variant with a
 * component of a new type fails here, naming the type to add.
 */
public final class OutcomeSamples {
  private OutcomeSamples() {}

  public static final OperationKey KEY = OperationKey.of("samples-key-0123456789abcdef");
  public static final Duration RETRY_AFTER = Duration.ofSeconds(7);

  private static final Instant AT = Instant.parse("2026-01-01T00:00:00Z");

  /** A completed record, which every variant that carries a record accepts. */
  public static final OperationRecord RECORD =
      new OperationRecord(
          TenantId.of("acme"),
          KEY,
          Optional.of(new OperationIntent("create-note", "1", new Fingerprint("ab".repeat(32)))),
          OperationState.COMPLETED,
          Optional.of(new StoredResponse(201, "{\"id\":1,\"title\":\"groceries\"}")),
          AT,
          Optional.of(AT.plusSeconds(1)),
          Optional.of(AT.plus(Duration.ofDays(7))));

  private static final Map<Class<?>, Object> VALUES =
      Map.of(
          OperationRecord.class,
          RECORD,
          Duration.class,
          RETRY_AFTER,
          String.class,
          "create-note",
          long.class,
          2048L,
          List.class,
          List.of(new Violation("title", "is required"), new Violation("", "is not an object")),
          Tombstone.class,
          new Tombstone(
              TenantId.of("acme"), KEY, Optional.of("create-note"), Optional.empty(), AT, AT));

  /** Every concrete variant, descending into nested sealed types. */
  public static List<Class<?>> variants() {
    List<Class<?>> found = new ArrayList<>();
    collect(ExecutionOutcome.class, found);
    return found;
  }

  private static void collect(Class<?> type, List<Class<?>> found) {
    for (Class<?> permitted : type.getPermittedSubclasses()) {
      if (permitted.isSealed()) {
        collect(permitted, found);
      } else {
        found.add(permitted);
      }
    }
  }

  /** One instance of each variant, in the order of {@link #variants()}. */
  public static List<ExecutionOutcome> outcomes() {
    return variants().stream().map(OutcomeSamples::sample).toList();
  }

  /** One exception of each kind a call can end in, and one of no known kind. */
  public static List<RuntimeException> failures() {
    return List.of(
        new ToolExecutionException("create-note", new IllegalStateException("boom")),
        new TransientStoreException("database is locked", null),
        new StoreUnavailableException("disk I/O error", null),
        new IllegalStateException("a bug"));
  }

  /** Every answer the samples give on {@code channel}, a lookup's included. */
  public static List<Answer> answers(Channel channel) {
    List<Answer> answers = new ArrayList<>();
    outcomes().forEach(outcome -> answers.add(Answers.of(outcome, channel)));
    failures().forEach(failure -> answers.add(Answers.of(failure, channel)));
    answers.add(Answers.found(RECORD, List.of()));
    return answers;
  }

  static ExecutionOutcome sample(Class<?> variant) {
    if (!variant.isRecord()) {
      throw new AssertionError(variant + " is not a record; give OutcomeSamples a sample of it");
    }
    RecordComponent[] components = variant.getRecordComponents();
    Class<?>[] types = new Class<?>[components.length];
    Object[] values = new Object[components.length];
    for (int i = 0; i < components.length; i++) {
      types[i] = components[i].getType();
      if (!VALUES.containsKey(types[i])) {
        throw new AssertionError(
            "no sample value of type "
                + types[i].getName()
                + " for "
                + variant.getSimpleName()
                + "."
                + components[i].getName()
                + "; add one to OutcomeSamples");
      }
      values[i] = VALUES.get(types[i]);
    }
    try {
      Constructor<?> canonical = variant.getDeclaredConstructor(types);
      return (ExecutionOutcome) canonical.newInstance(values);
    } catch (ReflectiveOperationException e) {
      throw new AssertionError("cannot make a sample of " + variant.getSimpleName(), e);
    }
  }
}
