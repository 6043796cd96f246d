package dev.toolledger.cli;

import java.util.concurrent.CountDownLatch;

/** Serving until SIGTERM or Ctrl-C, then stopping cleanly: what every long-running command does. */
final class StopSignal {
  private StopSignal() {}

  /**
   * Runs {@code stop} when the JVM is asked to end. Register it before announcing the service, then
   * {@code await()} the returned latch: it opens once {@code stop} has run.
   */
  static CountDownLatch onStop(String threadName, Runnable stop) {
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  stop.run();
                  stopped.countDown();
                },
                threadName));
    return stopped;
  }
}
