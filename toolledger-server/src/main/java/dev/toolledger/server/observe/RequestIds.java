package dev.toolledger.server.observe;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;
import org.slf4j.MDC;

/**
 * Gives every HTTP request a correlation id: the caller's {@code X-Request-Id} when it is a plain
 * token (1 to 64 letters, digits, '.', '_', ':' or '-'), else a new random one. The id is echoed in
 * the response's {@code X-Request-Id} and put in the logging context as {@value #MDC_KEY} while the
 * request is handled, so every log line of the request carries it.
 */
public final class RequestIds extends HttpFilter {
  private static final long serialVersionUID = 1L;

  /** The header read and written. */
  public static final String HEADER = "X-Request-Id";

  /** The logging context's key. */
  public static final String MDC_KEY = "request_id";

  private static final Pattern ACCEPTED = Pattern.compile("[A-Za-z0-9._:-]{1,64}");

  @Override
  protected void doFilter(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    String id = accepted(request.getHeader(HEADER));
    response.setHeader(HEADER, id);
    MDC.put(MDC_KEY, id);
    try {
      chain.doFilter(request, response);
    } finally {
      MDC.remove(MDC_KEY);
    }
  }

  /** The caller's id when it is safe to log and echo, or a new one. */
  static String accepted(String offered) {
    return offered != null && ACCEPTED.matcher(offered).matches() ? offered : newId();
  }

  private static final HexFormat HEX = HexFormat.of();

  /** A new id: 16 hexadecimal digits. */
  public static String newId() {
    // HexFormat rather than String.format: this runs once per request, and format parses its
    // pattern every time.
    return HEX.toHexDigits(ThreadLocalRandom.current().nextLong());
  }
}
