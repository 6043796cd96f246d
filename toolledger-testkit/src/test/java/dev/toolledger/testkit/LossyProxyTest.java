package dev.toolledger.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class LossyProxyTest {

  @Test
  void policySeesEachRequestsBodySoItCanDropOneMessageAmongPostsToTheSamePath() throws Exception {
    HttpServer upstream =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    upstream.createContext(
        "/rpc",
        exchange -> {
          byte[] answer = exchange.getRequestBody().readAllBytes();
          exchange.sendResponseHeaders(200, answer.length);
          exchange.getResponseBody().write(answer);
          exchange.close();
        });
    upstream.start();
    List<Exchange> seen = new CopyOnWriteArrayList<>();
    DropPolicy dropCalls =
        exchange -> {
          seen.add(exchange);
          return exchange.requestBody().contains("\"call\"");
        };
    URI server = URI.create("http://127.0.0.1:" + upstream.getAddress().getPort());
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    try (LossyProxy proxy = LossyProxy.start(server, dropCalls)) {
      HttpResponse<String> ping = http.send(post(proxy.uri(), "{\"m\":\"ping\"}"), utf8());
      Exception lost = null;
      try {
        http.send(post(proxy.uri(), "{\"m\":\"call\"}"), utf8());
      } catch (IOException e) {
        lost = e;
      }
      HttpResponse<String> get =
          http.send(HttpRequest.newBuilder(proxy.uri().resolve("/rpc")).GET().build(), utf8());

      assertThat(ping.body()).isEqualTo("{\"m\":\"ping\"}");
      assertThat(lost).as("the call's answer was dropped").isNotNull();
      assertThat(get.statusCode()).isEqualTo(200);
      assertThat(seen)
          .extracting(Exchange::method, Exchange::requestBody)
          .containsExactly(
              tuple("POST", "{\"m\":\"ping\"}"),
              tuple("POST", "{\"m\":\"call\"}"),
              tuple("GET", ""));
      assertThat(proxy.dropped()).isEqualTo(1);
    } finally {
      upstream.stop(0);
    }
  }

  private static HttpRequest post(URI proxy, String body) {
    return HttpRequest.newBuilder(proxy.resolve("/rpc"))
        .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
        .build();
  }

  private static HttpResponse.BodyHandler<String> utf8() {
    return HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8);
  }
}
