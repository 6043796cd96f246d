package dev.toolledger.core.problem;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import javax.net.ssl.SSLException;

/**
 * Plain words for a failure, for answers and stored histories: what kind of thing went wrong, never
 * the name of a class or library, nor an exception's message (which may quote either, or a host, a
 * path or a parameter). The exception itself belongs in the log.
 */
public final class FailureWords {
  private FailureWords() {}

  /** Returns a short phrase such as {@code "a timeout"} or {@code "an I/O error"}. */
  public static String of(Throwable failure) {
    if (failure.getClass().getName().startsWith("dev.toolledger.")
        && failure.getMessage() != null
        && !failure.getMessage().isBlank()) {
      // ToolLedger's own exceptions are written for people and carry no secrets or parameters.
      return "an error (" + failure.getMessage() + ")";
    }
    if (failure instanceof HttpConnectTimeoutException) {
      return "a connection timeout";
    }
    if (failure instanceof HttpTimeoutException || failure instanceof SocketTimeoutException) {
      return "a timeout";
    }
    if (failure instanceof ConnectException || failure instanceof NoRouteToHostException) {
      return "a refused or unreachable connection";
    }
    if (failure instanceof UnknownHostException) {
      return "an unknown host name";
    }
    if (failure instanceof SSLException) {
      return "a TLS error";
    }
    if (failure instanceof InterruptedException || failure instanceof InterruptedIOException) {
      return "an interruption";
    }
    if (failure instanceof IOException) {
      return "an I/O error";
    }
    return "an unexpected error";
  }
}
