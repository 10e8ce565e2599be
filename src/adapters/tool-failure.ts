/**
 * A tool call that got no answer, told to the model that made it.
 *
 * An agent reads a failed tool call as the result of that call and decides what to do next (try
 * again, ask for less, go on without the tool), so the failure must not be an exception that ends
 * the agent's run. The words are ours, chosen from the failure's reason: nothing a server wrote
 * (its JSON-RPC error text, an HTTP body, its stderr) reaches the model this way. What a tool says
 * about its own failure travels in an `isError` result, which is passed on as it is.
 */
import { McpTransportError, type McpFailureReason } from "../errors.js";
import { JSONRPC_INVALID_PARAMS, JSONRPC_METHOD_NOT_FOUND } from "../protocol/jsonrpc.js";

/**
 * Why a tool call got no answer: a transport failure reason, cancelled by the caller, the tool no
 * longer in its server's list (`REMOVED`: nothing was sent), or anything else.
 */
export type ToolFailureKind = McpFailureReason | "CANCELLED" | "REMOVED" | "FAILED";

/** A failed tool call, in plain data (it travels in the framework's messages and UI state). */
export interface ToolFailure {
  kind: ToolFailureKind;
  /** Whether the same call may succeed if made again later. */
  retryable: boolean;
  /** The message the model reads. */
  message: string;
  /** The deadline that fired, in ms, for TIMEOUT. */
  timeoutMs?: number;
}

/**
 * A call to `toolName` (the name the model knows) that was not sent: its server's tool list
 * changed, and the tool is no longer in it.
 */
export function removedToolFailure(toolName: string): ToolFailure {
  return {
    kind: "REMOVED",
    retryable: false,
    message:
      `the tool ${JSON.stringify(toolName)} is no longer offered by its server (its tool list changed), so it was not called; ` +
      "do not call it again: continue with the tools offered now",
  };
}

/**
 * A call to `toolName` that was not sent: the model gave its input as something else than an
 * object of named arguments (a string, an array), which `tools/call` cannot carry.
 */
export function badInputFailure(toolName: string, input: unknown): ToolFailure {
  const given = Array.isArray(input) ? "an array" : `a ${typeof input}`;
  return {
    kind: "FAILED",
    retryable: false,
    message:
      `the tool ${JSON.stringify(toolName)} takes an object of named arguments, as its input schema describes, and was given ${given}, ` +
      "so it was not called; call it again with its arguments as an object",
  };
}

/**
 * The failure of a call to `toolName` (the name the model knows), from what the call threw.
 * `signal` is the caller's: when it aborted, the call was cancelled, whatever it threw.
 */
export function describeToolFailure(toolName: string, error: unknown, signal?: AbortSignal): ToolFailure {
  const tool = JSON.stringify(toolName);
  if (signal?.aborted) {
    return {
      kind: "CANCELLED",
      retryable: false,
      message: `the call to the tool ${tool} was cancelled before it finished; it may or may not have taken effect`,
    };
  }
  if (!(error instanceof McpTransportError)) {
    return {
      kind: "FAILED",
      retryable: false,
      message: `the call to the tool ${tool} failed in the client before an answer came; continue without this tool`,
    };
  }
  const failure = (message: string): ToolFailure => ({ kind: error.reason, retryable: error.retryable, message });
  switch (error.reason) {
    case "TIMEOUT": {
      const after = error.timeoutMs === undefined ? "" : ` after ${formatDuration(error.timeoutMs)}`;
      return {
        ...failure(`the tool ${tool} timed out${after}; try again, or with a smaller request`),
        ...(error.timeoutMs === undefined ? {} : { timeoutMs: error.timeoutMs }),
      };
    }
    case "DISCONNECTED":
      return failure(
        `the connection to the server of the tool ${tool} was lost before it answered; it may or may not have taken effect; ` +
          "try again later or continue without this tool",
      );
    case "UNAVAILABLE":
      return failure(`the server of the tool ${tool} cannot be reached right now; try again later or continue without this tool`);
    case "LIMIT": {
      const limit = error.limitBytes === undefined ? "" : ` (${error.limitBytes} bytes)`;
      return failure(
        `the answer of the tool ${tool} was larger than this client accepts${limit}; ask for less, e.g. a narrower query or fewer results`,
      );
    }
    case "PROTOCOL":
      return failure(protocolMessage(tool, error));
  }
}

function protocolMessage(tool: string, error: McpTransportError): string {
  if (error.httpStatus === 401 || error.httpStatus === 403) {
    return `the server of the tool ${tool} refused the call as not authorized (HTTP ${error.httpStatus}); do not retry it`;
  }
  if (error.kind === "output_schema") {
    return (
      `the tool ${tool} answered with structured content that does not match its declared output schema; ` +
      "do not rely on this answer, and do not retry the same call"
    );
  }
  if (error.kind === "url_elicitation_required") {
    return (
      `the tool ${tool} needs the user to complete a step in the browser first (a URL elicitation), which was not done; ` +
      "ask the user to complete it, then try again"
    );
  }
  if (error.code === JSONRPC_INVALID_PARAMS) {
    return (
      `the server rejected the call to the tool ${tool} as invalid (an unknown tool, or arguments that do not match ` +
      "its input schema); check the arguments against the schema before trying again"
    );
  }
  if (error.code === JSONRPC_METHOD_NOT_FOUND) {
    return `the server of the tool ${tool} does not accept tool calls; continue without this tool`;
  }
  if (error.code !== undefined) {
    return `the server of the tool ${tool} answered with an error (JSON-RPC code ${error.code}); try again later or continue without this tool`;
  }
  if (error.httpStatus !== undefined) {
    return `the server of the tool ${tool} refused the call (HTTP ${error.httpStatus}); continue without this tool`;
  }
  return `the tool ${tool} answered with something that is not a valid tool result; do not retry the same call`;
}

/** `30000` as "30 s", `1500` as "1.5 s", `250` as "250 ms": how a person says a deadline. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  const seconds = Math.round(ms / 100) / 10;
  return `${seconds} s`;
}
