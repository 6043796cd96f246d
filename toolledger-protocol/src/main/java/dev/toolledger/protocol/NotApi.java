package dev.toolledger.protocol;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Public for other ToolLedger modules; not API, may change or go without notice.
 *
 * <p>Java has no visibility between "package" and "everyone": a type that one ToolLedger module
 * uses from another has to be public. This marks such a type, or such a member of an API type, so
 * that its being public promises nothing. What is API is listed in {@code CONTRIBUTING.md}: the
 * tool API ({@code dev.toolledger.api}), the agent-side client, the embedding facade ({@code
 * dev.toolledger.embed}), the HTTP and MCP protocol and the command line.
 *
 * <p>Whole packages named {@code internal} are not API either, marked or not.
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target({
  ElementType.TYPE,
  ElementType.METHOD,
  ElementType.CONSTRUCTOR,
  ElementType.FIELD,
  ElementType.PACKAGE
})
public @interface NotApi {}
