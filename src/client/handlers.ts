/**
 * The client's answers to server-to-client requests: sampling, elicitation and roots.
 *
 * The capabilities the client declares follow which handlers are set, so a server never asks for
 * something nobody will answer. Parameters from the server are checked before a handler sees
 * them (-32602 otherwise), and a handler's answer is checked before the server sees it.
 */
import type { z } from "zod";
import { JSONRPC_INTERNAL_ERROR, JSONRPC_INVALID_PARAMS } from "../protocol/jsonrpc.js";
import { Method } from "../protocol/methods.js";
import { schemas } from "../protocol/schema-registry.js";
import type {
  CreateMessageParams,
  CreateMessageResult,
  ElicitParams,
  ElicitResult,
  Root,
} from "../protocol/schemas.js";
import type { HandlerError, ServerRequestContext, TransportSession } from "../session/session.js";
import { applyElicitationDefaults } from "./elicitation-defaults.js";
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
  /** Answers `sampling/createMessage`; declares the `sampling` capability. */
  sampling?: SamplingHandler;
  /** Answers `elicitation/create`; declares the `elicitation` capability (form mode). */
  elicitation?: ElicitationHandler;
  /** Answers `roots/list` (a function, or a fixed list); declares `roots` with `listChanged`. */
  roots?: RootsHandler | Root[];
}

export type ClientCapabilities = Record<string, unknown>;

/** The capabilities that follow from the handlers, with the user's own declarations on top. */
export function capabilitiesFor(handlers: ClientHandlers, extra: ClientCapabilities = {}): ClientCapabilities {
  const capabilities: ClientCapabilities = {};
  if (handlers.sampling) capabilities.sampling = {};
  if (handlers.elicitation) capabilities.elicitation = { form: {} };
  if (handlers.roots) capabilities.roots = { listChanged: true };
  for (const [key, value] of Object.entries(extra)) {
    const mine = capabilities[key];
    capabilities[key] =
      isObject(mine) && isObject(value) ? { ...mine, ...value } : value;
  }
  return capabilities;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The function that answers server-to-client requests of `method` with the user's handler, its
 * parameters and result checked; undefined when no handler answers that method. The legacy era
 * routes server requests to it; the modern era calls it for each `inputRequests` entry.
 */
export function handlerFor(
  handlers: ClientHandlers,
  method: string,
): ((context: Pick<ServerRequestContext, "params" | "signal">) => Promise<Record<string, unknown>>) | undefined {
  const { sampling, elicitation, roots } = handlers;
  if (method === Method.samplingCreateMessage && sampling) {
    return checked(() => schemas().CreateMessageParamsSchema, () => schemas().CreateMessageResultSchema, "sampling", (params, signal) =>
      sampling({ params, signal }),
    );
  }
  if (method === Method.elicitationCreate && elicitation) {
    return checked(() => schemas().ElicitParamsSchema, () => schemas().ElicitResultSchema, "elicitation", async (params, signal) => {
      const result = await elicitation({ params, signal });
      return params.mode === "url" ? result : applyElicitationDefaults(params, result);
    });
  }
  if (method === Method.rootsList && roots) {
    const list = typeof roots === "function" ? roots : () => roots;
    return async ({ signal }) => {
      const parsed = schemas().RootSchema.array().safeParse(await list({ signal }));
      if (!parsed.success) throw handlerError(JSONRPC_INTERNAL_ERROR, "The client's roots handler returned an invalid list");
      return { roots: parsed.data };
    };
  }
  return undefined;
}

/** Installs the handlers on a session; a handler left unset keeps its method answered with -32601. */
export function installHandlers(session: TransportSession, handlers: ClientHandlers): void {
  for (const method of [Method.samplingCreateMessage, Method.elicitationCreate, Method.rootsList]) {
    const handler = handlerFor(handlers, method);
    if (handler) session.setRequestHandler(method, relatedToTask(handler));
  }
}

function checked<P extends z.ZodType, R extends z.ZodType>(
  paramsSchema: () => P,
  resultSchema: () => R,
  name: string,
  handle: (params: z.output<P>, signal: AbortSignal) => Promise<z.input<R>> | z.input<R>,
): (context: Pick<ServerRequestContext, "params" | "signal">) => Promise<Record<string, unknown>> {
  return async ({ params, signal }) => {
    const input = paramsSchema().safeParse(params);
    if (!input.success) throw handlerError(JSONRPC_INVALID_PARAMS, `Invalid params for ${name}`);
    const output = resultSchema().safeParse(await handle(input.data, signal));
    if (!output.success) throw handlerError(JSONRPC_INTERNAL_ERROR, `The client's ${name} handler returned an invalid result`);
    return output.data as Record<string, unknown>;
  };
}

function handlerError(code: number, message: string): HandlerError {
  return { code, message };
}
