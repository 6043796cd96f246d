package dev.toolledger.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import dev.toolledger.cli.demo.DemoScript;
import java.util.concurrent.Callable;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code toolledger demo}: the seed article's story, against a real server. */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description =
        "Play the lost-response story against a real server on a temporary database, step by"
            + " step; exits non-zero if any step disagrees.")
final class DemoCommand implements Callable<Integer> {
  @Option(names = "--keep", description = "Keep the temporary database and print its path.")
  boolean keep;

  @Option(names = "--verbose", description = "Show the server's log lines too.")
  boolean verbose;

  @Override
  public Integer call() throws Exception {
    if (!verbose) {
      ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).setLevel(Level.WARN);
      ((Logger) LoggerFactory.getLogger("dev.toolledger.server.http.ApiServlet"))
          .setLevel(Level.OFF);
    }
    return new DemoScript(System.out, keep).run() ? 0 : 1;
  }
}
