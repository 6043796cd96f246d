package dev.toolledger.clientmcp;

import dev.toolledger.client.ActionTransport;
import dev.toolledger.client.LookupResult;
import dev.toolledger.client.Outcome;
import dev.toolledger.client.journal.Action;
import dev.toolledger.client.retry.AttemptResult;
import dev.toolledger.protocol.OperationKey;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/** Counts how often the client asked its transport to send each key: the client's attempts. */
final class CountingTransport implements ActionTransport {
  final Map<String, AtomicLong> sends = new ConcurrentHashMap<>();
  final Map<String, AtomicLong> lookups = new ConcurrentHashMap<>();
  private final ActionTransport inner;

  CountingTransport(ActionTransport inner) {
    this.inner = inner;
  }

  @Override
  public AttemptResult<Outcome> send(OperationKey key, Action action, Duration timeout) {
    sends.computeIfAbsent(key.value(), k -> new AtomicLong()).incrementAndGet();
    return inner.send(key, action, timeout);
  }

  @Override
  public AttemptResult<LookupResult> lookup(OperationKey key, Duration timeout) {
    lookups.computeIfAbsent(key.value(), k -> new AtomicLong()).incrementAndGet();
    return inner.lookup(key, timeout);
  }

  long sends(String key) {
    AtomicLong n = sends.get(key);
    return n == null ? 0 : n.get();
  }
}
