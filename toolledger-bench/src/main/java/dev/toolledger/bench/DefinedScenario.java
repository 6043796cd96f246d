package dev.toolledger.bench;

import java.util.Objects;

/**
 * The one skeleton of the harness's scenarios: a name, whether the scenario goes through the
 * network, the operation the harness times, and what to close once its slices are done. The harness
 * ({@link Harness}) does the rest for every scenario alike: warm-up, slices, latency, throughput
 * and report. Families of scenarios ({@link EngineScenarios}, {@link FloorScenarios}, {@link
 * HttpScenarios}, {@link McpScenarios}) define theirs with the factories below, setting up what the
 * operation needs first.
 */
record DefinedScenario(String name, boolean remote, Operation operation, AutoCloseable teardown)
    implements Scenario, AutoCloseable {

  /** One timed operation; it returns when the operation is done and throws when it failed. */
  @FunctionalInterface
  interface Operation {
    void run(int thread, long sequence) throws Exception;
  }

  private static void closeNothing() {}

  DefinedScenario {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(operation, "operation");
    Objects.requireNonNull(teardown, "teardown");
  }

  /** A scenario inside the process that holds nothing to close. */
  static DefinedScenario local(String name, Operation operation) {
    return new DefinedScenario(name, false, operation, DefinedScenario::closeNothing);
  }

  /** A scenario inside the process whose {@code teardown} closes what it holds. */
  static DefinedScenario local(String name, Operation operation, AutoCloseable teardown) {
    return new DefinedScenario(name, false, operation, teardown);
  }

  /** A scenario whose threads are clients over the network; {@code teardown} closes them. */
  static DefinedScenario remote(String name, Operation operation, AutoCloseable teardown) {
    return new DefinedScenario(name, true, operation, teardown);
  }

  @Override
  public void run(int thread, long sequence) throws Exception {
    operation.run(thread, sequence);
  }

  @Override
  public void close() throws Exception {
    teardown.close();
  }
}
