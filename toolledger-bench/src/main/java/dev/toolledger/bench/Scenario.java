package dev.toolledger.bench;

/**
 * One kind of operation the harness measures. {@link #run} is called in a loop from several
 * threads; it returns when one operation is done and throws when it failed (a failure is counted,
 * never hidden).
 */
interface Scenario {
  String name();

  /** Whether this scenario goes through the network; its threads are then "clients". */
  default boolean remote() {
    return false;
  }

  void run(int thread, long sequence) throws Exception;

  /** Called before each slice's workers start: for work that runs beside them. */
  default void beforeSlice() {}

  /** Called after each slice's workers have finished. */
  default void afterSlice() {}
}
