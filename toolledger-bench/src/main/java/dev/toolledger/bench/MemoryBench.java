package dev.toolledger.bench;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Does the server's memory stay flat when the ledger holds many operations? Fills a SQLite ledger
 * with a million records, serves it over HTTP, drives lookups of random records and new keyed
 * creates for a while, and then reports the heap in use after a full collection. Run it in a JVM
 * with {@code -Xmx256m} to show that the records live in the database, not in memory.
 */
public final class MemoryBench {
  private MemoryBench() {}

  /** The figures of one run. */
  public record Result(
      long records, long requests, long heapUsedAfterGcBytes, long maxHeapBytes, long errors) {}

  public static Result run(
      Path directory, long records, Duration duration, int clients, PrintStream err)
      throws Exception {
    Harness.Progress progress = new Harness.Progress(err, true);
    try (Target target =
        Target.sqlite(
            "sqlite-full",
            directory.resolve("memory-" + Target.randomHex(3) + ".db"),
            dev.toolledger.jdbc.Synchronous.FULL)) {
      Fill.operations(target.store, records, progress);
      Http1Clients http = new Http1Clients(target.app.uri());
      AtomicLong requests = new AtomicLong();
      AtomicLong errors = new AtomicLong();
      long end = System.nanoTime() + duration.toNanos();
      Thread[] workers = new Thread[clients];
      for (int c = 0; c < clients; c++) {
        int client = c;
        workers[c] =
            new Thread(
                () -> {
                  while (System.nanoTime() < end) {
                    try {
                      if (ThreadLocalRandom.current().nextInt(10) == 0) {
                        Scenarios.expect(
                            Scenarios.post(
                                target, http, client, Scenarios.newKey(target, target.keys)),
                            201,
                            "false");
                      } else {
                        long n = 1 + ThreadLocalRandom.current().nextLong(records);
                        Http1Clients.Response response =
                            http.get(
                                client,
                                "/v1/operations/fill-" + n,
                                Map.of("Authorization", "Bearer " + target.token));
                        if (response.status() != 200) {
                          errors.incrementAndGet();
                        }
                      }
                      requests.incrementAndGet();
                    } catch (Exception e) {
                      errors.incrementAndGet();
                    }
                  }
                });
        workers[c].start();
      }
      for (Thread worker : workers) {
        progress.label("driving requests against " + records + " records");
        worker.join();
      }
      progress.done();
      http.close();
      System.gc();
      System.gc();
      MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
      return new Result(
          records, requests.get(), heap.getUsed(), Runtime.getRuntime().maxMemory(), errors.get());
    }
  }
}
