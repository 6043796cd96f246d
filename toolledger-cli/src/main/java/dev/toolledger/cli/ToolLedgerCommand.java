package dev.toolledger.cli;

import picocli.CommandLine.Command;

/** {@code toolledger}: run the ledger (HTTP and MCP), manage tokens, watch the demo. */
@Command(
    name = "toolledger",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = "Makes AI-agent write tools safe to retry.",
    subcommands = {
      ServeCommand.class,
      McpCommand.class,
      GuardCommand.class,
      TokensCommand.class,
      OutboxCommand.class,
      OpsCommand.class,
      BackupCommand.class,
      RestoreCommand.class,
      SweepCommand.class,
      AttachmentsCommand.class,
      DemoCommand.class,
      ExampleInvoicesCommand.class
    })
final class ToolLedgerCommand {}
