import type { DynamicStructuredTool } from '@langchain/core/tools';
import type { ToolNode } from '@langchain/langgraph/prebuilt';
import type { ToolLedgerClient, ToolLedgerError } from './index.js';

export class NoDurableIdentityError extends ToolLedgerError {}

/** Workflow = thread_id; step = the task's checkpoint namespace (`node:taskId`), `#suffix` if given. */
export function durableStep(
  config?: { configurable?: Record<string, unknown>; metadata?: Record<string, unknown> },
  suffix?: string | number,
): { workflowId: string; stepId: string };

export interface LedgerToolSpec {
  name: string;
  description: string;
  /** JSON Schema (or a zod schema) of the model's arguments. */
  schema: object;
  /** ToolLedger's tool name; default `name`. */
  tool?: string;
  /** Maps the model's arguments to the tool's parameters; default as they are. */
  parameters?: (args: any) => unknown;
}

export function ledgerTool(client: ToolLedgerClient, spec: LedgerToolSpec): DynamicStructuredTool;
export function ledgerToolNode(
  client: ToolLedgerClient,
  specs: LedgerToolSpec[],
  options?: ConstructorParameters<typeof ToolNode>[1],
): ToolNode;
