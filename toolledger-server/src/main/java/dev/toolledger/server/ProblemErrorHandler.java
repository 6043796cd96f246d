package dev.toolledger.server;

import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.Problem;
import dev.toolledger.protocol.ProblemType;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * Answers errors that Jetty raises before the API sees a request (a malformed request line, an
 * oversized header, bytes a header or a path may not carry) as problem documents too, instead of
 * HTML pages. Such a request never reached the engine: nothing was recorded.
 */
final class ProblemErrorHandler extends ErrorHandler {

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    int status = response.getStatus() <= 0 ? 500 : response.getStatus();
    ProblemType type =
        switch (status) {
          case 404 -> ProblemType.NOT_FOUND;
          case 405 -> ProblemType.METHOD_NOT_ALLOWED;
          case 413 -> ProblemType.PAYLOAD_TOO_LARGE;
          case 415 -> ProblemType.UNSUPPORTED_MEDIA_TYPE;
          default -> status >= 500 ? ProblemType.INTERNAL : ProblemType.BAD_REQUEST;
        };
    var json = Problem.of(type, "the request could not be handled (HTTP " + status + ")").toJson();
    json.put("status", status);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/problem+json");
    response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
    response.write(
        true, ByteBuffer.wrap(Json.write(json).getBytes(StandardCharsets.UTF_8)), callback);
    return true;
  }
}
