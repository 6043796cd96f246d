package dev.toolledger.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.Map;

/**
 * CPU time of the HTTP server's threads (Jetty's pool, {@code toolledger-http-*}: its selectors,
 * acceptors and the threads that run the API's servlet, engine included) in this process. The
 * clients run on threads of their own, so the difference over a slice is what the server spent on
 * the slice's requests, which the process's CPU (clients and server alike) cannot tell. MCP calls
 * hop to the MCP service's own threads, which are not counted.
 */
final class ServerThreadsCpu {
  static final String PREFIX = "toolledger-http";
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  private ServerThreadsCpu() {}

  /** CPU nanoseconds of each live server thread, by thread id. */
  static Map<Long, Long> snapshot() {
    Map<Long, Long> cpu = new HashMap<>();
    if (!THREADS.isThreadCpuTimeSupported()) {
      return cpu;
    }
    for (ThreadInfo info : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
      if (info != null && info.getThreadName().startsWith(PREFIX)) {
        long nanos = THREADS.getThreadCpuTime(info.getThreadId());
        if (nanos >= 0) {
          cpu.put(info.getThreadId(), nanos);
        }
      }
    }
    return cpu;
  }

  /**
   * The server threads' CPU since {@code before}; a thread started since counts from zero, one that
   * ended since is lost (Jetty's pool keeps its threads for a minute when idle).
   */
  static long since(Map<Long, Long> before) {
    long total = 0;
    for (Map.Entry<Long, Long> now : snapshot().entrySet()) {
      total += now.getValue() - before.getOrDefault(now.getKey(), 0L);
    }
    return total;
  }
}
