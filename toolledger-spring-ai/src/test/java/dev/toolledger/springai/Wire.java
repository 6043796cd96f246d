package dev.toolledger.springai;

import dev.toolledger.testkit.DropPolicy;
import dev.toolledger.testkit.Exchange;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A {@link DropPolicy} that also records what crossed the proxy, to count requests by method. */
final class Wire implements DropPolicy {
  private final List<Exchange> exchanges = new CopyOnWriteArrayList<>();
  private final DropPolicy decide;

  Wire(DropPolicy decide) {
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
