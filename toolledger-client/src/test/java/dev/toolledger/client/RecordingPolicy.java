package dev.toolledger.client;

import dev.toolledger.testkit.DropPolicy;
import dev.toolledger.testkit.Exchange;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A proxy policy that remembers every exchange it saw, then lets another policy decide. */
final class RecordingPolicy implements DropPolicy {
  final List<Exchange> exchanges = new CopyOnWriteArrayList<>();
  private final DropPolicy decide;

  RecordingPolicy(DropPolicy decide) {
    this.decide = decide;
  }

  static RecordingPolicy forwardAll() {
    return new RecordingPolicy(DropPolicy.never());
  }

  @Override
  public boolean drop(Exchange exchange) {
    exchanges.add(exchange);
    return decide.drop(exchange);
  }

  long posts() {
    return exchanges.stream().filter(e -> e.method().equals("POST")).count();
  }

  long gets() {
    return exchanges.stream().filter(e -> e.method().equals("GET")).count();
  }

  long withStatus(int status) {
    return exchanges.stream().filter(e -> e.status() == status).count();
  }
}
