/**
 * The client's answers to server-to-client requests: sampling, elicitation and roots.
 *
 * The capabilities the client declares follow which handlers are set, so a server never asks for
 * something nobody will answer. Parameters from the server are checked before a handler sees
 * them (-32602 otherwise), and a handler's answer is checked before the server sees it. In
 * revision 2025-11-25 a server may ask for sampling and elicitation to run as tasks; the same
 * handlers run them (see handler-tasks/).
 */
import { JSONRPC_INTERNAL_ERROR } from "../protocol/jsonrpc.js";
import { Method } from "../protocol/methods.js";
import { schemas } from "../protocol/schema-registry.js";
import { matching } from "./validate.js";
import type {
  CreateMessageParams,
  CreateMessageResult,
  ElicitParams,
  ElicitResult,
  Root,
} from "../protocol/schemas.js";
import type { ServerRequestContext, TransportSession } from "../session/session.js";
import { mergeCapabilities } from "./capability-merge.js";
import { elicitationAnswerer, elicitationCapability, type ElicitationHandlers } from "./elicitation.js";
import type { ElicitationCompletions } from "./elicitation-completions.js";
import type { EraName } from "./era.js";
import { answering, handlerError, isFileUri, type PreparedHandler } from "./handler-checks.js";
import { TASKABLE_METHODS, handlerTasksCapability } from "./handler-tasks/capability.js";
import { installHandlerTasks } from "./handler-tasks/install.js";
import { samplingAnswerer, samplingCapability, type SamplingHandlers } from "./sampling.js";
import { relatedToTask } from "./tasks/related-task.js";

export interface SamplingRequest {
  params: CreateMessageParams;
  /** Aborted when the server cancels the request or the connection ends. */
  signal: AbortSignal;
}

export interface ElicitationRequest {
  params: ElicitParams;
  signal: AbortSignal;
}

export interface RootsRequest {
  signal: AbortSignal;
}

export type SamplingHandler = (request: SamplingRequest) => CreateMessageResult | Promise<CreateMessageResult>;
export type ElicitationHandler = (request: ElicitationRequest) => ElicitResult | Promise<ElicitResult>;
export type RootsHandler = (request: RootsRequest) => Root[] | Promise<Root[]>;

export interface ClientHandlers {
  /**
   * Answers `sampling/createMessage`; declares the `sampling` capability. The object form
   * `{ createMessage, tools: true }` declares `sampling.tools` too: the handler runs the model
   * with the tools a request offers. In the legacy era it declares
   * `tasks.requests.sampling.createMessage` too: a server may ask for it to run as a task.
   */
  sampling?: SamplingHandler | SamplingHandlers;
  /**
   * Answers `elicitation/create`. A function answers form mode and declares `elicitation.form`;
   * `{ form, url }` gives a handler per mode, and each one given declares its mode. The `url`
   * handler also runs the elicitations a -32042 error asks for, before the request is sent again.
   * In the legacy era it declares `tasks.requests.elicitation.create` too.
   */
  elicitation?: ElicitationHandler | ElicitationHandlers;
  /** Answers `roots/list` (a function, or a fixed list); declares `roots` with `listChanged`. */
  roots?: RootsHandler | Root[];
}

export type ClientCapabilities = Record<string, unknown>;

/**
 * The capabilities that follow from the handlers in `era`, with the user's own declarations
 * merged on top at every depth (see capability-merge.ts). The `tasks` capability of the handlers
 * is the legacy era's alone: revision 2026-07-28 has no tasks a client runs.
 */
export function capabilitiesFor(handlers: ClientHandlers, extra: ClientCapabilities = {}, era: EraName = "legacy"): ClientCapabilities {
  const capabilities: ClientCapabilities = {};
  if (handlers.sampling) capabilities.sampling = samplingCapability(handlers.sampling);
  if (handlers.elicitation) capabilities.elicitation = elicitationCapability(handlers.elicitation);
  if (handlers.roots) capabilities.roots = { listChanged: true };
  const tasks = era === "legacy" ? handlerTasksCapability(handlers) : undefined;
  if (tasks) capabilities.tasks = tasks;
  return mergeCapabilities(capabilities, extra);
}

/** What the answers of one client share: the completions of its URL elicitations; and the era they answer in. */
export interface HandlerContext {
  completions?: ElicitationCompletions;
  /** Whose rules the server's parameters are read by (sampling's `tools`). @default "legacy" */
  era?: EraName;
}

/**
 * The function that answers server-to-client requests of `method` with the user's handler, its
 * parameters and result checked; undefined when no handler answers that method. The legacy era
 * routes server requests to it; the modern era calls it for each `inputRequests` entry.
 */
export function handlerFor(
  handlers: ClientHandlers,
  method: string,
  context: HandlerContext = {},
): ((context: Pick<ServerRequestContext, "params" | "signal">) => Promise<Record<string, unknown>>) | undefined {
  const prepare = preparedHandlerFor(handlers, method, context);
  return prepare && answering(prepare);
}

/**
 * The handler of `method` in two steps (see `PreparedHandler`): its parameters checked at once,
 * then its answer produced and checked; a task is made only between the two.
 */
function preparedHandlerFor(handlers: ClientHandlers, method: string, context: HandlerContext): PreparedHandler | undefined {
  const { sampling, elicitation, roots } = handlers;
  if (method === Method.samplingCreateMessage && sampling) return samplingAnswerer(sampling, context.era);
  if (method === Method.elicitationCreate && elicitation) return elicitationAnswerer(elicitation, context.completions);
  if (method === Method.rootsList && roots) {
    const list = typeof roots === "function" ? roots : () => roots;
    return () => async (signal) => {
      const parsed = matching(schemas().RootListSchema, await list({ signal }));
      if (parsed === undefined) throw handlerError(JSONRPC_INTERNAL_ERROR, "The client's roots handler returned an invalid list");
      if (!parsed.every((root) => isFileUri(root.uri))) {
        throw handlerError(JSONRPC_INTERNAL_ERROR, "The client's roots handler returned a root whose uri is not a file:// URI");
      }
      return { roots: parsed };
    };
  }
  return undefined;
}

/**
 * Installs the handlers on a session; a handler left unset keeps its method answered with -32601.
 * Sampling and elicitation go through the session's task store, which runs them as tasks when
 * a server of revision 2025-11-25 asks. While an elicitation waits for a person, the session's
 * deadlines stand still, as for a login.
 */
export function installHandlers(session: TransportSession, handlers: ClientHandlers, context: HandlerContext = {}): void {
  const taskable = new Map<string, PreparedHandler>();
  for (const method of [Method.samplingCreateMessage, Method.elicitationCreate, Method.rootsList]) {
    const given = preparedHandlerFor(handlers, method, context);
    if (!given) continue;
    const prepare: PreparedHandler = relatedToTask(
      method === Method.elicitationCreate
        ? (params) => {
            const run = given(params);
            return (signal) => session.duringUserInput(() => run(signal));
          }
        : given,
    );
    if (TASKABLE_METHODS.has(method)) taskable.set(method, prepare);
    else session.setRequestHandler(method, answering(prepare));
  }
  if (taskable.size > 0) installHandlerTasks(session, taskable);
}
