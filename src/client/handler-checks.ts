/**
 * The checks around a handler of server-to-client requests: the server's parameters before the
 * handler sees them (-32602 otherwise), and the handler's answer before the server sees it
 * (-32603 otherwise). The messages are ours and name no internals of the client.
 */
import type { Infer, Type } from "../protocol/valita.js";
import { matching } from "./validate.js";
import { JSONRPC_INTERNAL_ERROR, JSONRPC_INVALID_PARAMS } from "../protocol/jsonrpc.js";
import type { HandlerError, ServerRequestContext } from "../session/session.js";

/** A server-to-client request answered by one of the user's handlers. */
export type AnsweringHandler = (context: Pick<ServerRequestContext, "params" | "signal">) => Promise<Record<string, unknown>>;

/**
 * A handler in two steps: the server's parameters checked (a `HandlerError` -32602 thrown at
 * once), then a function that produces the answer and checks it (rejecting with -32603). A task
 * the server asks for is made only between the two, so a bad request is refused, not a failed task.
 */
export type PreparedHandler = (params: Record<string, unknown>) => (signal: AbortSignal) => Promise<Record<string, unknown>>;

/** The two steps of `prepare` as one answer. */
export function answering(prepare: PreparedHandler): AnsweringHandler {
  return async ({ params, signal }) => prepare(params ?? {})(signal);
}

export interface HandlerChecks<P, R> {
  /** A rule of the method beyond the schema: the reason the parameters are invalid, if they are. */
  params?: (params: P) => string | undefined;
  /** Likewise for the handler's answer, given the parameters it answered. */
  result?: (result: R, params: P) => boolean;
}

export function checked<P extends Type, R extends Type>(
  paramsSchema: () => P,
  resultSchema: () => R,
  name: string,
  handle: (params: Infer<P>, signal: AbortSignal) => Promise<Infer<R>> | Infer<R>,
  checks: HandlerChecks<Infer<P>, Infer<R>> = {},
): PreparedHandler {
  return (params) => {
    const input = matching(paramsSchema(), params);
    if (input === undefined) throw handlerError(JSONRPC_INVALID_PARAMS, `Invalid params for ${name}`);
    const invalid = checks.params?.(input);
    if (invalid !== undefined) throw handlerError(JSONRPC_INVALID_PARAMS, invalid);
    return async (signal) => {
      const output = matching(resultSchema(), await handle(input, signal));
      if (output === undefined || (checks.result && !checks.result(output, input))) {
        throw handlerError(JSONRPC_INTERNAL_ERROR, `The client's ${name} handler returned an invalid result`);
      }
      return output as Record<string, unknown>;
    };
  };
}

export function handlerError(code: number, message: string): HandlerError {
  return { code, message };
}

/**
 * A root's `uri` "MUST be a `file://` URI in the current specification" (client/roots, "Root"):
 * a root with another (an https:// one, a bare path) is never sent to the server.
 */
export function isFileUri(uri: string): boolean {
  return /^file:\/\//i.test(uri);
}
