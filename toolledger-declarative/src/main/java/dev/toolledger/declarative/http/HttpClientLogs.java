package dev.toolledger.declarative.http;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.LoggerContextListener;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import org.slf4j.ILoggerFactory;
import org.slf4j.LoggerFactory;
import org.slf4j.Marker;

/**
 * Silences Apache HttpClient's own logging, whatever level the application sets. At DEBUG its
 * {@code org.apache.hc.client5.http.headers} logger prints every header sent (the {@code
 * Authorization} value read from {@code ${ENV}}, the downstream key), its {@code wire} logger every
 * byte of both bodies, and its exec chain the request line (a lookup URL holding the downstream
 * key); even at WARN it prints a {@code Set-Cookie} it cannot parse. None of that may reach a log.
 *
 * <p>With logback (what ToolLedger's server and CLI use), a turbo filter denies every event of the
 * loggers under {@value #PREFIX} before any level or appender is consulted, and it is put back when
 * the configuration is reset or reloaded. With another SLF4J backend nothing is installed: set
 * {@code org.apache.hc} to {@code OFF} in that backend's configuration (docs/security.md).
 */
final class HttpClientLogs {
  /** The loggers silenced: all of Apache HttpClient and HttpCore. */
  static final String PREFIX = "org.apache.hc.";

  private static volatile boolean installed;

  private HttpClientLogs() {}

  /** Installs the filter once per JVM, when logback is the backend. Cheap after the first call. */
  static void silence() {
    if (installed) {
      return;
    }
    synchronized (HttpClientLogs.class) {
      if (installed) {
        return;
      }
      ILoggerFactory factory = LoggerFactory.getILoggerFactory();
      if (isLogback(factory)) {
        Logback.install(factory);
      }
      installed = true;
    }
  }

  private static boolean isLogback(ILoggerFactory factory) {
    try {
      return factory.getClass().getName().equals("ch.qos.logback.classic.LoggerContext");
    } catch (LinkageError e) {
      return false;
    }
  }

  /** Loaded only when logback is the backend, so that logback stays an optional dependency. */
  private static final class Logback {
    private Logback() {}

    static void install(ILoggerFactory factory) {
      LoggerContext context = (LoggerContext) factory;
      Deny deny = new Deny();
      deny.setContext(context);
      deny.setName("toolledger-silence-http-client");
      deny.start();
      context.addTurboFilter(deny);
      context.addListener(new KeepAfterReset(deny));
    }
  }

  /** Denies every event of a logger under {@link #PREFIX}. */
  static final class Deny extends TurboFilter {
    @Override
    public FilterReply decide(
        Marker marker, Logger logger, Level level, String format, Object[] params, Throwable t) {
      return logger != null && logger.getName().startsWith(PREFIX)
          ? FilterReply.DENY
          : FilterReply.NEUTRAL;
    }
  }

  /** A reset (a reconfiguration, a reload) clears turbo filters: put this one back. */
  private record KeepAfterReset(Deny deny) implements LoggerContextListener {
    @Override
    public boolean isResetResistant() {
      return true;
    }

    @Override
    public void onStart(LoggerContext context) {}

    @Override
    public void onReset(LoggerContext context) {
      if (!context.getTurboFilterList().contains(deny)) {
        deny.start();
        context.addTurboFilter(deny);
      }
    }

    @Override
    public void onStop(LoggerContext context) {}

    @Override
    public void onLevelChange(Logger logger, Level level) {}
  }
}
