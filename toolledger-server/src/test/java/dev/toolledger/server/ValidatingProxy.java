package dev.toolledger.server;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.openapi.contract.OpenAPIContract;
import io.vertx.openapi.contract.Operation;
import io.vertx.openapi.mediatype.ContentAnalyserFactory;
import io.vertx.openapi.mediatype.MediaTypePredicate;
import io.vertx.openapi.mediatype.MediaTypeRegistry;
import io.vertx.openapi.mediatype.impl.DefaultMediaTypeRegistration;
import io.vertx.openapi.validation.RequestUtils;
import io.vertx.openapi.validation.RequestValidator;
import io.vertx.openapi.validation.ResponseValidator;
import io.vertx.openapi.validation.ValidatableResponse;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A reverse proxy in front of a real server that checks every request and every response passing
 * through it against an OpenAPI document with Vert.x OpenAPI (OpenAPI 3.1, JSON Schema 2020-12).
 * The library itself parses the real request (path, query, headers, body) as it arrived on the
 * socket, picks the operation by path and method, and validates; the proxy only passes bytes on
 * unchanged and keeps the verdicts.
 */
final class ValidatingProxy implements AutoCloseable {

  /**
   * One request and its response, with what the validator said of each (empty when it found nothing
   * wrong).
   */
  record Exchange(
      String method,
      String uri,
      int status,
      Optional<String> requestViolation,
      Optional<String> responseViolation) {

    @Override
    public String toString() {
      return method
          + " "
          + uri
          + " -> "
          + status
          + requestViolation.map(v -> "\n  request: " + v).orElse("")
          + responseViolation.map(v -> "\n  response: " + v).orElse("");
    }
  }

  private static final List<String> HOP_BY_HOP =
      List.of("host", "content-length", "transfer-encoding", "connection");

  private final Vertx vertx;
  private final HttpServer server;
  private final HttpClient client;
  private final List<Exchange> exchanges = new CopyOnWriteArrayList<>();

  private ValidatingProxy(Vertx vertx, HttpServer server, HttpClient client) {
    this.vertx = vertx;
    this.server = server;
    this.client = client;
  }

  /** Starts the proxy on a free loopback port in front of {@code upstream}. */
  static ValidatingProxy start(URI upstream, String document) throws Exception {
    Vertx vertx = Vertx.vertx();
    try {
      // RFC 9457's media type is JSON; Vert.x OpenAPI knows only application/json and vnd.*+json
      // by itself, so it is told, as its documentation shows for custom media types.
      OpenAPIContract contract =
          await(
              OpenAPIContract.builder(vertx)
                  .setContract(new JsonObject(document))
                  .mediaTypeRegistry(
                      MediaTypeRegistry.createDefault()
                          .register(
                              new DefaultMediaTypeRegistration(
                                  MediaTypePredicate.ofExactTypes("application/problem+json"),
                                  ContentAnalyserFactory.json())))
                  .build(),
              "reading the document");
      RequestValidator requests = RequestValidator.create(vertx, contract);
      ResponseValidator responses = ResponseValidator.create(vertx, contract);
      HttpClient client = vertx.createHttpClient();
      ValidatingProxy[] self = new ValidatingProxy[1];
      HttpServer server =
          vertx
              .createHttpServer()
              .requestHandler(
                  request ->
                      self[0].handle(request, upstream, contract, requests, responses, client));
      await(server.listen(0, "127.0.0.1"), "listening");
      self[0] = new ValidatingProxy(vertx, server, client);
      return self[0];
    } catch (Exception e) {
      vertx.close();
      throw e;
    }
  }

  URI uri() {
    return URI.create("http://127.0.0.1:" + server.actualPort());
  }

  /** Every exchange so far, oldest first. */
  List<Exchange> exchanges() {
    return List.copyOf(exchanges);
  }

  /** The latest exchange. */
  Exchange last() {
    return exchanges.get(exchanges.size() - 1);
  }

  private void handle(
      HttpServerRequest request,
      URI upstream,
      OpenAPIContract contract,
      RequestValidator requests,
      ResponseValidator responses,
      HttpClient client) {
    request
        .body()
        .onSuccess(
            body -> {
              Operation operation = contract.findOperation(request.path(), request.method());
              Future<Optional<String>> requestVerdict =
                  operation == null
                      ? Future.succeededFuture(
                          Optional.of(
                              "no operation for " + request.method() + " " + request.path()))
                      : verdict(
                          RequestUtils.extract(
                                  request, operation, () -> Future.succeededFuture(body))
                              .compose(r -> requests.validate(r, operation.getOperationId())));
              RequestOptions forward =
                  new RequestOptions()
                      .setMethod(request.method())
                      .setHost(upstream.getHost())
                      .setPort(upstream.getPort())
                      .setURI(request.uri());
              request.headers().forEach(h -> forward.addHeader(h.getKey(), h.getValue()));
              HOP_BY_HOP.forEach(forward::removeHeader);
              client
                  .request(forward)
                  .compose(upstreamRequest -> upstreamRequest.send(body))
                  .compose(
                      upstreamResponse ->
                          upstreamResponse
                              .body()
                              .compose(
                                  responseBody ->
                                      requestVerdict.compose(
                                          requestProblem ->
                                              answer(
                                                  request,
                                                  operation,
                                                  responses,
                                                  requestProblem,
                                                  upstreamResponse,
                                                  responseBody))))
                  .onFailure(
                      e -> request.response().setStatusCode(502).end("proxy: " + e.getMessage()));
            });
  }

  private Future<Void> answer(
      HttpServerRequest request,
      Operation operation,
      ResponseValidator responses,
      Optional<String> requestProblem,
      HttpClientResponse upstream,
      Buffer body) {
    Map<String, String> headers = new LinkedHashMap<>();
    upstream.headers().forEach(h -> headers.putIfAbsent(h.getKey(), h.getValue()));
    String contentType = upstream.getHeader("Content-Type");
    Future<Optional<String>> responseVerdict =
        operation == null
            ? Future.succeededFuture(Optional.of("no operation to check the response against"))
            : verdict(
                responses.validate(
                    body.length() == 0
                        ? ValidatableResponse.create(upstream.statusCode(), headers)
                        : ValidatableResponse.create(
                            upstream.statusCode(), headers, body, contentType),
                    operation.getOperationId()));
    return responseVerdict.compose(
        responseProblem -> {
          exchanges.add(
              new Exchange(
                  request.method().name(),
                  request.uri(),
                  upstream.statusCode(),
                  requestProblem,
                  responseProblem));
          var response = request.response().setStatusCode(upstream.statusCode());
          upstream.headers().forEach(h -> response.headers().add(h.getKey(), h.getValue()));
          return response.end(body);
        });
  }

  /** The validator's failure as text, or empty when it passed. */
  private static Future<Optional<String>> verdict(Future<?> validation) {
    return validation.transform(
        result ->
            Future.succeededFuture(
                result.succeeded()
                    ? Optional.<String>empty()
                    : Optional.of(String.valueOf(result.cause()))));
  }

  private static <T> T await(Future<T> future, String what) throws Exception {
    try {
      return future.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      throw new IllegalStateException(what + " failed: " + e.getCause(), e.getCause());
    }
  }

  @Override
  public void close() throws Exception {
    await(client.close(), "closing the client");
    await(server.close(), "closing the proxy");
    await(vertx.close(), "closing Vert.x");
  }
}
