/**
 * The -32042 error, URL elicitation required (client/elicitation, revision 2025-11-25): a server
 * refuses a request until the user completes the URL elicitations it lists in the error's data.
 * The client runs each one through the URL-mode handler, in order, and sends the request again
 * once every one was accepted; once only: a second -32042 fails, as a server that keeps asking
 * would otherwise hold the caller in a loop.
 *
 * The handlers are a person at work: their wait is bounded by the caller's `signal` and by the
 * client's close, not by `timeoutMs`, which bounds each sending of the request, as the modern
 * era's input rounds are. Every failure keeps the server's error (code -32042, its data) and is
 * PROTOCOL of kind `url_elicitation_required`.
 */
import { McpTransportError } from "../errors.js";
import { URL_ELICITATION_REQUIRED } from "../protocol/error-codes.js";
import { schemas } from "../protocol/schema-registry.js";
import { matching } from "./validate.js";
import { abortReason } from "../util/abort.js";
import type { ElicitationCompletions } from "./elicitation-completions.js";
import { checkElicitationUrl } from "./elicitation-url.js";
import { runUrlElicitation, type UrlElicitationHandler } from "./elicitation.js";

export interface UrlElicitationContext {
  /** The request's method, handed to the handler as `requiredBy`. */
  method: string;
  /** Names the request in messages, e.g. `callTool "search"`. */
  label: string;
  /** The caller's signal: it aborts the handlers too. */
  signal?: AbortSignal;
  /** The handler of URL-mode elicitations, if the client has one. */
  handler: UrlElicitationHandler | undefined;
  completions: ElicitationCompletions;
  /** Aborted when the client closes. */
  closing: AbortSignal;
  /** The server, for messages. */
  where: () => string;
}

/** Whether a request failed with -32042: the server lists URL elicitations to complete first. */
export function isUrlElicitationRequired(error: unknown): error is McpTransportError {
  return error instanceof McpTransportError && error.code === URL_ELICITATION_REQUIRED;
}

/**
 * After a request failed with `error`, a -32042: runs the elicitations it lists, then sends the
 * request once more with `attempt`. A second -32042 fails.
 */
export async function afterUrlElicitations<T>(error: McpTransportError, attempt: () => Promise<T>, context: UrlElicitationContext): Promise<T> {
  await runRequiredElicitations(error, context);
  try {
    return await attempt();
  } catch (again) {
    if (!isUrlElicitationRequired(again)) throw again;
    throw required(
      again,
      `${context.label}: the server still requires a URL elicitation after the ones it listed were completed; ` +
        `mcpwire sends a request again only once (${context.where()})`,
    );
  }
}

async function runRequiredElicitations(error: McpTransportError, context: UrlElicitationContext): Promise<void> {
  const { label, handler } = context;
  const where = context.where();
  const data = matching(schemas().UrlElicitationRequiredDataSchema, error.serverData);
  if (data === undefined) {
    throw required(error, `${label}: the server answered -32042 (URL elicitation required) without a valid list of URL elicitations (${where})`);
  }
  if (!handler) {
    throw required(
      error,
      `${label} needs the user to open a URL first (the server answered -32042, URL elicitation required), and this client ` +
        `has no handler for URL-mode elicitation: give one as options.handlers.elicitation.url (${where})`,
    );
  }
  // A signal of this run's own, so that what listens to it goes with the run, not with the client.
  const signal = AbortSignal.any(context.signal ? [context.signal, context.closing] : [context.closing]);
  // The caller's abort rejects with its reason; the client's close is the connection's end.
  const stopped = () =>
    context.signal?.aborted
      ? abortReason(context.signal)
      : new McpTransportError("DISCONNECTED", `${label}: the client was closed during a URL elicitation the server requires (${where})`, {
          method: context.method,
        });
  for (const params of data.elicitations) {
    if (signal.aborted) throw stopped();
    const url = checkElicitationUrl(params.url);
    if ("refused" in url) throw required(error, `${label}: the server requires a URL elicitation that was not shown: ${url.refused} (${where})`);
    let answer;
    try {
      answer = await runUrlElicitation(handler, params, url, signal, context.completions, context.method);
    } catch (cause) {
      if (signal.aborted) throw stopped();
      throw required(error, `${label}: the URL elicitation handler failed (${where})`, cause);
    }
    if (!answer) {
      throw required(error, `${label}: the URL elicitation handler answered something other than { action: "accept" | "decline" | "cancel" } (${where})`);
    }
    if (answer.action !== "accept") {
      const what = answer.action === "decline" ? "declined" : "cancelled";
      throw required(error, `${label}: the server requires a URL elicitation, and the user ${what} it (${where})`);
    }
  }
}

function required(error: McpTransportError, message: string, cause?: unknown): McpTransportError {
  return error.with({ kind: "url_elicitation_required", ...(cause === undefined ? {} : { cause }) }, message);
}
