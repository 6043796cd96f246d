package dev.toolledger.langchain4j;

import dev.toolledger.testkit.DropPolicy;
import dev.toolledger.testkit.Exchange;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A proxy policy that remembers every exchange it saw, then lets another policy decide. */
final class Recording implements DropPolicy {
  final List<Exchange> exchanges = new CopyOnWriteArrayList<>();
  private final DropPolicy decide;

  Recording(DropPolicy decide) {
    this.decide = decide;
  }

  @Override
  public boolean drop(Exchange exchange) {
    exchanges.add(exchange);
    return decide.drop(exchange);
  }

  long posts() {
    return exchanges.stream().filter(e -> e.method().equals("POST")).count();
  }

  long lookups() {
    return exchanges.stream()
        .filter(e -> e.method().equals("GET") && e.target().startsWith("/v1/operations/"))
        .count();
  }
}
