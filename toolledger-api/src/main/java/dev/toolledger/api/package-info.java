/**
 * ToolLedger's public tool API: everything a tool author or a plugin uses, and nothing else.
 *
 * <p>A tool is a {@link dev.toolledger.api.TransactionalTool} (its effect is writes to the ledger's
 * own database, committed in the same transaction as the operation's record) or an {@link
 * dev.toolledger.api.ExternalTool} (its effect is elsewhere: claimed, performed with a stable
 * downstream key, then recorded only if the claim is still this executor's). Its {@link
 * dev.toolledger.api.ToolDescriptor} names it, versions its contract and gives the JSON Schema of
 * its parameters. A {@link dev.toolledger.api.ToolPlugin} packages tools, their own tables and read
 * views in a jar the server loads.
 *
 * <p>Types in other {@code dev.toolledger} packages are internal and may change in any release.
 */
package dev.toolledger.api;
