package dev.toolledger.server.mcp;

import dev.toolledger.server.auth.Principal;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * The Streamable HTTP sessions this node opened: which token opened each, and when it was last
 * used. A session is bound to the token (and so the tenant) that opened it, as the MCP
 * specification's security guidance asks: presented by any other token, it is answered like an
 * unknown session. A session unused for the idle timeout is forgotten; one token holds at most
 * {@code maxPerToken} sessions.
 *
 * <p>The SDK keeps its own session objects; the transport's sweeper (at the idle timeout as its
 * interval) frees those this registry no longer {@linkplain #holds holds}, so they never outlive it
 * by more than one interval, and no request reaches them once this registry forgot them.
 */
final class McpSessions {
  /** What {@link #reserve} decided. */
  sealed interface Reservation {
    /** A slot for one new session, to {@link McpSessions#settle} once the session opened or not. */
    record Granted(String tokenId) implements Reservation {}

    /** The token holds {@code limit} sessions already. */
    record Refused(int limit) implements Reservation {}
  }

  private record Session(String tenant, String tokenId, Instant lastUsed) {}

  private final Clock clock;
  private final Duration idleTimeout;
  private final int maxPerToken;
  private final Map<String, Session> sessions = new HashMap<>();
  private final Map<String, Integer> pending = new HashMap<>();

  McpSessions(Clock clock, Duration idleTimeout, int maxPerToken) {
    this.clock = clock;
    this.idleTimeout = idleTimeout;
    this.maxPerToken = maxPerToken;
  }

  /** Reserves a slot for a session the principal is about to open. */
  synchronized Reservation reserve(Principal principal) {
    forgetIdle();
    String tokenId = principal.tokenId();
    long open = sessions.values().stream().filter(s -> s.tokenId().equals(tokenId)).count();
    int reserved = pending.getOrDefault(tokenId, 0);
    if (open + reserved >= maxPerToken) {
      return new Reservation.Refused(maxPerToken);
    }
    pending.merge(tokenId, 1, Integer::sum);
    return new Reservation.Granted(tokenId);
  }

  /**
   * Opens the session of a granted slot. Call it before the session's id can reach the client (see
   * {@link SessionOpeningResponse}), so that the client's next message finds it.
   */
  synchronized void open(Reservation.Granted slot, Principal principal, String sessionId) {
    free(slot);
    sessions.put(
        sessionId, new Session(principal.tenant().value(), principal.tokenId(), clock.instant()));
  }

  /** Frees a granted slot when no session was opened with it. */
  synchronized void release(Reservation.Granted slot) {
    free(slot);
  }

  private void free(Reservation.Granted slot) {
    pending.computeIfPresent(slot.tokenId(), (k, n) -> n > 1 ? n - 1 : null);
  }

  /**
   * Whether the session is open and was opened by this principal's token; if so it counts as used
   * now. An unknown, idle or foreign session all answer false.
   */
  synchronized boolean use(String sessionId, Principal principal) {
    Session session = sessions.get(sessionId);
    if (session == null) {
      return false;
    }
    Instant now = clock.instant();
    if (idle(session, now)) {
      sessions.remove(sessionId);
      return false;
    }
    if (!session.tokenId().equals(principal.tokenId())
        || !session.tenant().equals(principal.tenant().value())) {
      return false;
    }
    sessions.put(sessionId, new Session(session.tenant(), session.tokenId(), now));
    return true;
  }

  /** Whether the session is open (not closed, not idle), whoever opened it; uses nothing. */
  synchronized boolean holds(String sessionId) {
    Session session = sessions.get(sessionId);
    return session != null && !idle(session, clock.instant());
  }

  synchronized void close(String sessionId) {
    sessions.remove(sessionId);
  }

  synchronized int size() {
    forgetIdle();
    return sessions.size();
  }

  private void forgetIdle() {
    Instant now = clock.instant();
    for (Iterator<Session> it = sessions.values().iterator(); it.hasNext(); ) {
      if (idle(it.next(), now)) {
        it.remove();
      }
    }
  }

  private boolean idle(Session session, Instant now) {
    return !session.lastUsed().plus(idleTimeout).isAfter(now);
  }
}
