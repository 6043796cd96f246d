package dev.toolledger.examples.langchain4j;

import dev.toolledger.testkit.DropPolicy;
import dev.toolledger.testkit.Exchange;
import java.io.PrintStream;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The lossy network between the agent and the server: it tells what it does with each answer, and
 * loses answers to {@code create-note} on demand, always after the server has sent them (so after
 * the commit).
 */
final class Network implements DropPolicy {
  private static final String CREATE_NOTE = "/v1/tools/create-note";

  private final PrintStream out;
  private final AtomicInteger toLose = new AtomicInteger();
  private volatile boolean loseAll;
  private final AtomicInteger posts = new AtomicInteger();
  private final AtomicInteger lookups = new AtomicInteger();

  Network(PrintStream out) {
    this.out = out;
  }

  void loseNextAnswers(int count) {
    loseAll = false;
    toLose.set(count);
  }

  void loseEveryAnswer() {
    loseAll = true;
  }

  void deliverEverything() {
    loseAll = false;
    toLose.set(0);
  }

  int posts() {
    return posts.get();
  }

  int lookups() {
    return lookups.get();
  }

  @Override
  public boolean drop(Exchange exchange) {
    if (exchange.target().equals("/v1/tools")) {
      return false; // the agent reading the tool list at start-up: not part of the story
    }
    String what = exchange.method() + " " + shorten(exchange.target());
    if (exchange.method().equals("GET") && exchange.target().startsWith("/v1/operations/")) {
      lookups.incrementAndGet();
      what += " (a lookup of the journaled key)";
    }
    boolean lose =
        exchange.method().equals("POST")
            && exchange.target().equals(CREATE_NOTE)
            && (loseAll || toLose.getAndUpdate(n -> Math.max(0, n - 1)) > 0);
    if (exchange.method().equals("POST")) {
      posts.incrementAndGet();
    }
    out.println(
        "   network: "
            + what
            + " -> "
            + exchange.status()
            + (lose ? ", the answer is LOST on the way back" : ", delivered"));
    return lose;
  }

  private static String shorten(String target) {
    int keyAt = target.indexOf("/v1/operations/");
    if (keyAt < 0) {
      return target;
    }
    String key = target.substring(keyAt + "/v1/operations/".length());
    return "/v1/operations/" + Keys.shorten(key);
  }
}
