package dev.toolledger.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.protocol.Json;
import dev.toolledger.testkit.history.Answer;
import dev.toolledger.testkit.history.Call;
import dev.toolledger.testkit.history.History;
import dev.toolledger.testkit.history.HistoryChecker;
import dev.toolledger.testkit.history.LedgerContents;
import dev.toolledger.testkit.history.LedgerReader;
import dev.toolledger.testkit.history.Settlement;
import dev.toolledger.testkit.history.Verdict;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The end of a run: with every node's faults over and one node serving, looks up each key whose
 * caller was left not knowing, calls each acknowledged key again, reads the ledger and the notes
 * straight from the database, and hands it all to the {@link HistoryChecker}.
 */
final class HistoryAudit {
  private static final HttpClient HTTP =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  private HistoryAudit() {}

  /**
   * @param jdbcUrl the ledger's database ({@code jdbc:sqlite:...} or {@code jdbc:postgresql:...})
   * @param tenant the tenant of {@code token}
   */
  static Verdict audit(
      History history, URI node, String token, String jdbcUrl, String tenant, Duration bound)
      throws Exception {
    return audit(history, node, token, jdbcUrl, tenant, bound, Map.of());
  }

  /**
   * @param upstreamEffects effects counted outside the database (by an upstream of an HTTP tool),
   *     by key
   */
  static Verdict audit(
      History history,
      URI node,
      String token,
      String jdbcUrl,
      String tenant,
      Duration bound,
      Map<String, Integer> upstreamEffects)
      throws Exception {
    Map<String, Settlement> lookups = new HashMap<>();
    Map<String, Answer> replays = new HashMap<>();
    Map<String, Call> firstCall = new LinkedHashMap<>();
    Map<String, Boolean> acknowledged = new HashMap<>();
    Map<String, Boolean> open = new HashMap<>();
    for (Call call : history.calls()) {
      if (call.kind() != Call.Kind.TOOL) {
        continue;
      }
      firstCall.putIfAbsent(call.key(), call);
      if (call.answer() instanceof Answer.Heard heard && heard.acknowledged()) {
        acknowledged.put(call.key(), true);
      }
      if (call.answer().leavesOutcomeOpen()) {
        open.put(call.key(), true);
      }
    }
    for (Call call : firstCall.values()) {
      String key = call.key();
      if (acknowledged.containsKey(key)) {
        replays.put(key, callAgain(node, token, call));
      } else if (open.containsKey(key)) {
        lookups.put(key, lookup(node, token, key));
      }
    }
    LedgerContents ledger;
    try (Connection connection = DriverManager.getConnection(jdbcUrl)) {
      ledger = LedgerReader.notes(connection, tenant, history.keyByParameter("title"));
    }
    ledger = ledger.plusEffects(upstreamEffects);
    return HistoryChecker.bound(bound).check(history, ledger, lookups, replays);
  }

  static Answer callAgain(URI node, String token, Call call) {
    HttpRequest request =
        HttpRequest.newBuilder(node.resolve("/v1/tools/" + call.tool()))
            .timeout(Duration.ofSeconds(10))
            .header("Authorization", "Bearer " + token)
            .header("Idempotency-Key", "\"" + call.key() + "\"")
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(call.parameters()))
            .build();
    try {
      HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
      Optional<String> replayed = response.headers().firstValue("Idempotent-Replayed");
      return new Answer.Heard(
          response.statusCode(),
          response.body(),
          replayed.isPresent(),
          replayed.map(v -> v.equalsIgnoreCase("true")).orElse(false));
    } catch (IOException e) {
      return new Answer.None(e.getClass().getSimpleName());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Answer.None("interrupted");
    }
  }

  static Settlement lookup(URI node, String token, String key) {
    HttpRequest request =
        HttpRequest.newBuilder(
                node.resolve(
                    "/v1/operations/"
                        + URLEncoder.encode(key, StandardCharsets.UTF_8).replace("+", "%20")))
            .timeout(Duration.ofSeconds(10))
            .header("Authorization", "Bearer " + token)
            .GET()
            .build();
    try {
      HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() == 404) {
        return Settlement.NOT_FOUND;
      }
      if (response.statusCode() != 200) {
        return Settlement.UNAVAILABLE;
      }
      JsonNode record = Json.parse(response.body());
      return Settlement.ofState(record.get("state").asText());
    } catch (IOException e) {
      return Settlement.UNAVAILABLE;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Settlement.UNAVAILABLE;
    }
  }

  /** The keys in {@code history} whose tool calls include an acknowledged answer. */
  static List<String> acknowledgedKeys(History history) {
    return history.calls().stream()
        .filter(c -> c.kind() == Call.Kind.TOOL)
        .filter(c -> c.answer() instanceof Answer.Heard h && h.acknowledged())
        .map(Call::key)
        .distinct()
        .toList();
  }
}
