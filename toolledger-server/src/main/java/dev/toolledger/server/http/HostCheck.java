package dev.toolledger.server.http;

import dev.toolledger.protocol.Problem;
import dev.toolledger.protocol.ProblemType;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Refuses a request whose {@code Host} is not a name this node answers to, with {@code 421} {@code
 * misdirected-host}, before anything else looks at it: the defence against DNS rebinding that the
 * {@link OriginCheck} cannot give, since a rebinding page's own same-origin GET carries no {@code
 * Origin} (only its {@code Host}, the attacker's name, tells it apart).
 *
 * <p>With no configured host, a request that arrived on a loopback address must name {@code
 * localhost}, {@code 127.0.0.1} or {@code [::1]} (any port: only the name tells a rebinding page);
 * a request that arrived on another address is not checked, since the names such a node is reached
 * by are not known to it. Configured hosts are {@code name} (any port), {@code name:port}, or
 * {@code *} (every host).
 */
public final class HostCheck extends HttpFilter {
  private static final long serialVersionUID = 1L;

  /** The value that allows every host. */
  public static final String ANY = "*";

  private static final Set<String> LOOPBACK_NAMES = Set.of("localhost", "127.0.0.1", "[::1]");
  private static final Pattern NAME =
      Pattern.compile("(\\[[0-9a-f:.]+\\]|[a-z0-9]([a-z0-9.-]*[a-z0-9])?)(:[0-9]{1,5})?");

  private final Set<String> allowed;
  private final boolean any;

  /**
   * @param allowed normalized hosts (see {@link #normalizeAll}); empty: the default above
   */
  public HostCheck(Set<String> allowed) {
    this.allowed = Set.copyOf(allowed);
    this.any = allowed.contains(ANY);
  }

  @Override
  protected void doFilter(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    if (!allows(request.getHeader("Host"), request.getLocalAddr())) {
      refuse(response);
      return;
    }
    chain.doFilter(request, response);
  }

  boolean allows(String host, String localAddress) {
    if (any) {
      return true;
    }
    if (allowed.isEmpty() && !isLoopback(localAddress)) {
      return true;
    }
    if (host == null) {
      return true; // an HTTP/1.0 client's request; a browser always names the host
    }
    String name = host.strip().toLowerCase(Locale.ROOT);
    if (!NAME.matcher(name).matches()) {
      return false;
    }
    int colon = name.lastIndexOf(':');
    boolean hasPort = colon > name.lastIndexOf(']');
    String bare = hasPort ? name.substring(0, colon) : name;
    int port = hasPort ? Integer.parseInt(name.substring(colon + 1)) : 80;
    if (allowed.isEmpty()) {
      // Any port: only the name carries a rebinding page's origin, and a proxy on loopback in
      // front of the node passes its own port on.
      return LOOPBACK_NAMES.contains(bare);
    }
    return allowed.contains(bare) || allowed.contains(bare + ":" + port);
  }

  private static boolean isLoopback(String address) {
    if (address == null) {
      return false;
    }
    try {
      // A literal address: no name lookup happens.
      return InetAddress.getByName(address).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }

  /**
   * Checks configured hosts: each must be {@value #ANY}, a host name or address (IPv6 in brackets),
   * optionally with {@code :port}; they are kept in lower case.
   *
   * @throws IllegalArgumentException naming the first bad value
   */
  public static Set<String> normalizeAll(Set<String> hosts) {
    Set<String> normalized = new LinkedHashSet<>();
    for (String host : hosts) {
      String value = host.strip().toLowerCase(Locale.ROOT);
      if (!value.equals(ANY) && !NAME.matcher(value).matches()) {
        throw new IllegalArgumentException(
            "allowedHost must be a host name such as ledger.example.com, optionally with :port"
                + " (IPv6 addresses in brackets), or *, not '"
                + host
                + "'");
      }
      normalized.add(value);
    }
    return normalized;
  }

  private static void refuse(HttpServletResponse response) throws IOException {
    Problem problem =
        Problem.of(
            ProblemType.MISDIRECTED_HOST,
            "this node does not answer to the host name in the request; a browser page reached"
                + " through another name (DNS rebinding) is refused. An operator allows further"
                + " names with serve --allowed-host NAME");
    HttpFrame.problem(problem).writeTo(response);
  }
}
