/**
 * A tool's behaviour hints (`annotations`, server/tools "Tool Annotations"), as the agent
 * frameworks get them: in the tool's metadata, and as the reading behind an approval policy.
 *
 * The hints come from the server and are not verified: the specification says a client must
 * treat them as untrusted unless the server is trusted. Where a hint is missing, its default is
 * the cautious one (`readOnlyHint` false, `destructiveHint` true), so a tool that says nothing is
 * taken to be able to destroy.
 */
import type { ServerTool } from "./tool-naming.js";

/** The boolean hints a server may give, passed on in the tool's metadata when it gave them. */
export const TOOL_HINT_NAMES = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const;

export type ToolHintName = (typeof TOOL_HINT_NAMES)[number];

/** What the frameworks carry of a tool besides its schema: which server and tool, and the hints given. */
export type AgentToolMetadata = { mcpServer: string; mcpTool: string } & Partial<Record<ToolHintName, boolean>>;

/**
 * Which tools need a person's approval before they run:
 * - `false`: none; `true`: all;
 * - `"destructive"`: the tools that may destroy, which is every tool but those marked
 *   `readOnlyHint: true` or `destructiveHint: false`;
 * - `"not-read-only"`: every tool but those marked `readOnlyHint: true`;
 * - a function of the listed tool, for a rule of your own.
 */
export type ApprovalPolicy = boolean | "destructive" | "not-read-only" | ((tool: ServerTool) => boolean);

const POLICY_WORDS = ["destructive", "not-read-only"] as const;

/** The metadata of a tool: its server, its own name, and each hint the server gave (never a default). */
export function agentToolMetadata(entry: ServerTool): AgentToolMetadata {
  const metadata: AgentToolMetadata = { mcpServer: entry.server, mcpTool: entry.tool.name };
  const annotations = entry.tool.annotations;
  for (const name of TOOL_HINT_NAMES) {
    const value: unknown = annotations?.[name];
    if (typeof value === "boolean") metadata[name] = value;
  }
  return metadata;
}

/** Whether the tool may change its environment: not marked `readOnlyHint: true`. */
export function mayWrite(entry: ServerTool): boolean {
  return entry.tool.annotations?.readOnlyHint !== true;
}

/** Whether the tool may destroy: it may write, and is not marked `destructiveHint: false`. */
export function mayDestroy(entry: ServerTool): boolean {
  return mayWrite(entry) && entry.tool.annotations?.destructiveHint !== false;
}

/** Whether `policy` asks for approval of this tool. */
export function needsApproval(policy: ApprovalPolicy | undefined, entry: ServerTool): boolean {
  if (policy === undefined || typeof policy === "boolean") return policy === true;
  if (policy === "destructive") return mayDestroy(entry);
  if (policy === "not-read-only") return mayWrite(entry);
  return policy(entry) === true;
}

/** Refuses a policy that is none of the allowed ones, saying which those are. */
export function checkApprovalPolicy(policy: unknown, where: string): void {
  if (policy === undefined || typeof policy === "boolean" || typeof policy === "function") return;
  if (typeof policy === "string" && (POLICY_WORDS as readonly string[]).includes(policy)) return;
  throw new TypeError(
    `${where}: "needsApproval" must be true, false, "destructive", "not-read-only" or a function of the tool, got ${JSON.stringify(policy) ?? typeof policy}`,
  );
}
