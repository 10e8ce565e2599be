/**
 * Which tool calls run as tasks, and what the client declares for them.
 *
 * 2025-11-25 (basic/utilities/tasks, "Tool-Level Negotiation"): only a server that declares
 * `tasks.requests.tools.call` runs tools as tasks; then a tool's `execution.taskSupport` from the
 * latest tool list decides: `required` always runs as a task, `optional` when the caller asks,
 * `forbidden` (the default) never. The 2026-07-28 tasks extension has no asking: the client
 * declares the extension and the server decides per call; the caller may only check that the
 * server declares it too.
 */
import type { ServerCapabilities, Tool } from "../../protocol/schemas.js";
import { TASKS_EXTENSION } from "../../protocol/tasks.js";
import { checkWholeNumber } from "../../util/whole-number.js";
import type { EraName } from "../era.js";
import type { ClientCapabilities } from "../handlers.js";
import type { RequestOptions } from "../../session/session.js";
import { taskUnsupported } from "./task-errors.js";
import type { TaskHost } from "./task-wire.js";

/** A caller's request to run a call as a task. */
export interface TaskRequest {
  /**
   * How long the server should keep the task after its creation, in ms (2025-11-25 `task.ttl`;
   * the server may choose another). The extension has no way to ask: ignored there.
   */
  ttlMs?: number;
}

/** `plain`: a `tools/call` as always; `task`: a task-augmented one. */
export type ToolCallPlan = "plain" | "task";

/** The caller's `task` option: undefined or false (the tool decides), true or a `TaskRequest` (asked). */
export function checkTaskOption(value: unknown, where: string): TaskRequest | undefined {
  if (value === undefined || value === false) return undefined;
  if (value === true) return {};
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new TypeError(`${where}: "task" must be true, false or { ttlMs }, got ${JSON.stringify(value) ?? typeof value}`);
  }
  const unknown = Object.keys(value).find((key) => key !== "ttlMs");
  if (unknown !== undefined) throw new TypeError(`${where}: unknown key "task.${unknown}"; a task request takes ttlMs only`);
  const { ttlMs } = value as { ttlMs?: unknown };
  return ttlMs === undefined ? {} : { ttlMs: checkWholeNumber(ttlMs, "task.ttlMs", where, { min: 1 }) };
}

export interface PlanInput {
  era: EraName;
  serverCapabilities: ServerCapabilities;
  /** Whether the caller asked for a task. */
  asked: boolean;
  /** The tool's name. */
  tool: string;
  /** Where the tool is learnt of: the latest tool list (see `ToolCatalog.peek`), listed on demand only where it decides. */
  tools: Pick<TaskHost, "peekTool" | "findTool">;
  /** The bounds of a listing, the call's own. */
  options: Pick<RequestOptions, "signal" | "timeoutMs">;
  label: string;
  where: string;
}

/**
 * How to send the call, or a `task_unsupported` failure when the caller asked for what is not
 * offered. Decided at once (not a promise) when no listing is needed, so that a plain call
 * reaches the session in the same turn, as any other call does.
 */
export function planToolCall(input: PlanInput): ToolCallPlan | Promise<ToolCallPlan> {
  if (input.era === "modern") {
    if (input.asked && !declaresTasksExtension(input.serverCapabilities)) {
      throw refusal(input, `the server does not declare the tasks extension (${TASKS_EXTENSION})`);
    }
    // The server decides whether the call becomes a task.
    return "plain";
  }
  if (!runsToolTasks(input.serverCapabilities)) {
    if (input.asked) throw refusal(input, "the server does not run tools as tasks (its capabilities have no tasks.requests.tools.call)");
    return "plain";
  }
  const known = input.tools.peekTool(input.tool);
  return known !== undefined ? decide(known.tool, input) : input.tools.findTool(input.tool, input.options, input.label).then((tool) => decide(tool, input));
}

/** 2025-11-25, on a server that runs tools as tasks: what the tool's `execution.taskSupport` says. */
function decide(tool: Tool | undefined, input: PlanInput): ToolCallPlan {
  const support = tool?.execution?.taskSupport ?? "forbidden";
  if (support === "required") return "task";
  if (support === "optional") return input.asked ? "task" : "plain";
  if (input.asked) {
    throw refusal(
      input,
      tool === undefined ? "the server's tool list has no tool of that name" : "the tool does not run as a task (its execution.taskSupport is forbidden or absent)",
    );
  }
  return "plain";
}

function refusal(input: PlanInput, why: string) {
  return taskUnsupported(`${input.label} cannot run as a task: ${why}; call it without the task option (${input.where})`, "tools/call");
}

/** 2025-11-25: whether the server declares `tasks.requests.tools.call`. */
function runsToolTasks(capabilities: ServerCapabilities): boolean {
  const tasks = capabilities.tasks as { requests?: { tools?: { call?: unknown } } } | undefined;
  const call = typeof tasks === "object" && tasks !== null ? tasks.requests?.tools?.call : undefined;
  return typeof call === "object" && call !== null;
}

/** 2026-07-28: whether the server declares the tasks extension in `server/discover`. */
export function declaresTasksExtension(capabilities: ServerCapabilities): boolean {
  const extensions = capabilities.extensions as Record<string, unknown> | undefined;
  const declared = typeof extensions === "object" && extensions !== null ? extensions[TASKS_EXTENSION] : undefined;
  return typeof declared === "object" && declared !== null;
}

/**
 * The capabilities a modern request carries: the client's, with the tasks extension, since
 * `callTool` follows a task whenever the server answers with one ("A client that has negotiated
 * this extension MUST be prepared to handle either"). A declaration of the user's own is kept.
 */
export function withTasksExtension(capabilities: ClientCapabilities): ClientCapabilities {
  const extensions = capabilities.extensions;
  const mine = typeof extensions === "object" && extensions !== null && !Array.isArray(extensions) ? (extensions as Record<string, unknown>) : {};
  if (TASKS_EXTENSION in mine) return capabilities;
  return { ...capabilities, extensions: { ...mine, [TASKS_EXTENSION]: {} } };
}
