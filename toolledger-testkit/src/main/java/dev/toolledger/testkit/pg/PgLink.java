package dev.toolledger.testkit.pg;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/** One client connection through a {@link PgFaultProxy} and its connection to the server. */
final class PgLink {
  private static final int SSL_REQUEST = 80877103;
  private static final int GSS_REQUEST = 80877104;
  private static final int CONNECT_TIMEOUT_MILLIS = 5000;

  private final PgFaultProxy proxy;
  private final Socket client;
  private final Socket server = new Socket();

  /** Named prepared statements of the client, with their SQL (client thread only). */
  private final Map<String, String> statements = new HashMap<>();

  volatile boolean stalled;
  private volatile boolean closed;

  /** Whether the server's last ReadyForQuery reported a transaction (open or failed). */
  private volatile boolean inTransaction;

  /** A fault at {@link PgFaultPoint#AFTER_COMMIT_SENT} whose commit went to the server. */
  private volatile PgFaultProxy.Armed commitFault;

  PgLink(PgFaultProxy proxy, Socket client) {
    this.proxy = proxy;
    this.client = client;
  }

  void start() {
    Thread t = new Thread(this::clientSide, "pg-fault-proxy-client");
    t.setDaemon(true);
    t.start();
  }

  boolean isClosed() {
    return closed;
  }

  private void clientSide() {
    try {
      client.setTcpNoDelay(true);
      DataInputStream in = new DataInputStream(new BufferedInputStream(client.getInputStream()));
      byte[] startup;
      while (true) {
        int length = in.readInt();
        byte[] body = new byte[length - 4];
        in.readFully(body);
        int code = ((body[0] & 0xff) << 24) | ((body[1] & 0xff) << 16) | ((body[2] & 0xff) << 8);
        code |= body[3] & 0xff;
        if (code == SSL_REQUEST || code == GSS_REQUEST) {
          if (!proxy.awaitOpen(this)) {
            return;
          }
          client.getOutputStream().write('N');
          client.getOutputStream().flush();
          continue;
        }
        startup = body;
        break;
      }
      if (!proxy.awaitOpen(this)) {
        return;
      }
      server.connect(proxy.upstream(), CONNECT_TIMEOUT_MILLIS);
      server.setTcpNoDelay(true);
      DataOutputStream toServer =
          new DataOutputStream(new BufferedOutputStream(server.getOutputStream()));
      toServer.writeInt(startup.length + 4);
      toServer.write(startup);
      toServer.flush();
      Thread serverSide = new Thread(this::serverSide, "pg-fault-proxy-server");
      serverSide.setDaemon(true);
      serverSide.start();
      PgRoundTrip trip = new PgRoundTrip();
      while (true) {
        int type = in.read();
        if (type < 0) {
          break;
        }
        int length = in.readInt();
        byte[] body = new byte[length - 4];
        in.readFully(body);
        note(type, body, trip);
        trip.add(type, body);
        if (continuesRoundTrip(type)) {
          continue;
        }
        PgFaultProxy.Armed fault = proxy.take(inTransaction, trip);
        if (fault != null) {
          if (fault.point() == PgFaultPoint.AFTER_COMMIT_SENT) {
            commitFault = fault;
          } else if (fault.stall()) {
            proxy.stallLink(this);
          } else {
            proxy.countReset();
            reset();
            return;
          }
        }
        if (!proxy.awaitOpen(this)) {
          return;
        }
        trip.writeTo(toServer);
        toServer.flush();
        trip = new PgRoundTrip();
      }
    } catch (IOException e) {
      // The client went away or the link was reset: handled below.
    }
    // Over a stalled link the server would not see the client go either: only once healed.
    proxy.awaitOpen(this);
    close();
  }

  private void serverSide() {
    try {
      DataInputStream in = new DataInputStream(new BufferedInputStream(server.getInputStream()));
      DataOutputStream out =
          new DataOutputStream(new BufferedOutputStream(client.getOutputStream()));
      while (true) {
        int type = in.read();
        if (type < 0) {
          break;
        }
        int length = in.readInt();
        byte[] body = new byte[length - 4];
        in.readFully(body);
        if (type == 'Z' && body.length > 0) {
          inTransaction = body[0] != 'I';
        }
        PgFaultProxy.Armed fault = commitFault;
        if (fault != null) {
          if (!fault.stall()) {
            // The server committed; its answer is lost with the connection.
            if (type == 'Z') {
              proxy.countReset();
              reset();
              return;
            }
            continue;
          }
          commitFault = null;
          proxy.stallLink(this);
        }
        if (!proxy.awaitOpen(this)) {
          return;
        }
        out.write(type);
        out.writeInt(length);
        out.write(body);
        if (in.available() == 0) {
          out.flush();
        }
      }
    } catch (EOFException e) {
      // the server closed the connection
    } catch (IOException e) {
      // reset or closed
    }
    proxy.awaitOpen(this);
    close();
  }

  /** Remembers named statements and collects the SQL a message carries. */
  private void note(int type, byte[] body, PgRoundTrip trip) {
    switch (type) {
      case 'Q' -> trip.sql(cstring(body, 0));
      case 'P' -> {
        String name = cstring(body, 0);
        String sql = cstring(body, utf8Length(name) + 1);
        statements.put(name, sql);
        trip.sql(sql);
      }
      case 'B' -> {
        String portal = cstring(body, 0);
        String statement = cstring(body, utf8Length(portal) + 1);
        trip.sql(statements.getOrDefault(statement, ""));
      }
      case 'C' -> {
        if (body.length > 0 && body[0] == 'S') {
          statements.remove(cstring(body, 1));
        }
      }
      default -> {}
    }
  }

  /** Parse, Bind, Describe, Execute and Close come before the Sync that ends their round trip. */
  private static boolean continuesRoundTrip(int type) {
    return type == 'P' || type == 'B' || type == 'D' || type == 'E' || type == 'C';
  }

  private static String cstring(byte[] body, int from) {
    int end = from;
    while (end < body.length && body[end] != 0) {
      end++;
    }
    return from >= body.length ? "" : new String(body, from, end - from, StandardCharsets.UTF_8);
  }

  private static int utf8Length(String s) {
    return s.getBytes(StandardCharsets.UTF_8).length;
  }

  /** Resets both sides (RST); false when the link was closed already. */
  boolean reset() {
    if (closed) {
      return false;
    }
    closed = true;
    proxy.forget(this);
    resetQuietly(client);
    resetQuietly(server);
    return true;
  }

  void close() {
    closed = true;
    proxy.forget(this);
    try {
      client.close();
    } catch (IOException e) {
      // closing anyway
    }
    try {
      server.close();
    } catch (IOException e) {
      // closing anyway
    }
  }

  static void resetQuietly(Socket socket) {
    try {
      socket.setSoLinger(true, 0);
    } catch (IOException e) {
      // not connected: closing is enough
    }
    try {
      socket.close();
    } catch (IOException e) {
      // closing anyway
    }
  }
}
