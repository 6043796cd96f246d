package dev.toolledger.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.protocol.Problem;
import dev.toolledger.protocol.ProblemType;
import dev.toolledger.server.auth.Principal;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/** The {@link ReadEndpoint}s that tool modules add beside the API, by their exact path. */
final class ReadViews {
  private final Map<String, ReadEndpoint> byPath;

  ReadViews(List<ReadEndpoint> reads) {
    this.byPath =
        reads.stream()
            .collect(Collectors.toUnmodifiableMap(ReadEndpoint::path, Function.identity()));
  }

  boolean serves(String path) {
    return byPath.containsKey(path);
  }

  List<String> paths() {
    return List.copyOf(byPath.keySet());
  }

  void serve(
      String path, Principal principal, HttpServletRequest request, HttpServletResponse response)
      throws IOException {
    JsonNode result;
    try {
      result = byPath.get(path).read(principal, Paths.query(request.getQueryString()));
    } catch (IllegalArgumentException e) {
      HttpFrame.problem(Problem.of(ProblemType.INVALID_PARAMETERS, e.getMessage()))
          .writeTo(response);
      return;
    } catch (ReadEndpoint.Refused e) {
      HttpFrame.problem(e.problem()).writeTo(response);
      return;
    }
    HttpFrame.json(200, result).writeTo(response);
  }
}
