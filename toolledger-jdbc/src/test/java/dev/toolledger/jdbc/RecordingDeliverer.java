package dev.toolledger.jdbc;

import dev.toolledger.core.outbox.Deliverer;
import dev.toolledger.core.outbox.OutboxEvent;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An in-JVM recipient for relay tests: records every delivery attempt and answers as scripted per
 * event id, acknowledging by default.
 */
final class RecordingDeliverer implements Deliverer {
  private final Map<String, Deque<DeliveryResult>> scripts = new ConcurrentHashMap<>();

  /** Every attempt, in order. */
  final List<OutboxEvent> attempts = new CopyOnWriteArrayList<>();

  /** How often each event id was acknowledged. */
  final Map<String, AtomicInteger> acknowledged = new ConcurrentHashMap<>();

  /** Scripts how the next attempts of one event end; after that it is acknowledged. */
  void script(String id, DeliveryResult... results) {
    scripts.computeIfAbsent(id, k -> new ConcurrentLinkedDeque<>()).addAll(List.of(results));
  }

  @Override
  public DeliveryResult deliver(OutboxEvent event) {
    attempts.add(event);
    Deque<DeliveryResult> script = scripts.get(event.id());
    DeliveryResult result = script == null ? null : script.poll();
    if (result == null) {
      result = new DeliveryResult.Delivered();
    }
    if (result instanceof DeliveryResult.Delivered) {
      acknowledged.computeIfAbsent(event.id(), k -> new AtomicInteger()).incrementAndGet();
    }
    return result;
  }

  long attemptsOf(String id) {
    return attempts.stream().filter(e -> e.id().equals(id)).count();
  }
}
