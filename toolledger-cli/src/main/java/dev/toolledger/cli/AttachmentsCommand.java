package dev.toolledger.cli;

import dev.toolledger.server.attachments.AttachmentService;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code toolledger attachments serve}: the reference recipient of outbox events. */
@Command(
    name = "attachments",
    mixinStandardHelpOptions = true,
    description = "The reference attachment service (a recipient of outbox events).",
    subcommands = {AttachmentsCommand.Serve.class})
final class AttachmentsCommand {

  @Command(
      name = "serve",
      mixinStandardHelpOptions = true,
      description =
          "Serve POST /v1/attachments with its own SQLite database and inbox: each event id has"
              + " one effect, however often it is delivered.")
  static final class Serve implements Callable<Integer> {
    @Option(
        names = "--db",
        paramLabel = "PATH",
        defaultValue = "attachments.db",
        description = "The service's own SQLite file (default: ${DEFAULT-VALUE}).")
    Path db;

    @Option(
        names = "--port",
        defaultValue = "8090",
        description = "Port; 0 picks a free one (default: ${DEFAULT-VALUE}).")
    int port;

    @Option(
        names = "--bind",
        paramLabel = "ADDR",
        defaultValue = "127.0.0.1",
        description = "Listen address (default: ${DEFAULT-VALUE}).")
    String bind;

    @Override
    public Integer call() throws Exception {
      AttachmentService service = AttachmentService.start(db, bind, port);
      CountDownLatch stopped = StopSignal.onStop("attachments-shutdown", service::close);
      System.out.println("toolledger attachments: serving " + service.endpoint());
      System.out.flush();
      stopped.await();
      return 0;
    }
  }
}
