package dev.toolledger.server.mcp;

import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.util.function.Consumer;

/**
 * The response to an {@code initialize}: it opens the session (in {@link McpSessions}) the moment
 * the transport sets the {@code Mcp-Session-Id} header. A header can only be set before the
 * response is committed, so the session is open before any byte of the answer can reach the client.
 * Opening it once the transport has returned is too late: the client sends its next message as soon
 * as the answer arrives, and on a loaded machine the thread that wrote the answer may not run again
 * before that message is looked at, which then finds no session.
 */
final class SessionOpeningResponse extends HttpServletResponseWrapper {
  private final Consumer<String> open;
  private String opened;

  /**
   * @param open called once, on the request's thread, with the session id the transport announces
   */
  SessionOpeningResponse(HttpServletResponse response, Consumer<String> open) {
    super(response);
    this.open = open;
  }

  /** The session id announced (and so opened), or null. */
  String opened() {
    return opened;
  }

  @Override
  public void setHeader(String name, String value) {
    announce(name, value);
    super.setHeader(name, value);
  }

  @Override
  public void addHeader(String name, String value) {
    announce(name, value);
    super.addHeader(name, value);
  }

  private void announce(String name, String value) {
    if (opened == null
        && McpGate.SESSION_HEADER.equalsIgnoreCase(name)
        && value != null
        && !value.isBlank()) {
      open.accept(value);
      opened = value;
    }
  }
}
