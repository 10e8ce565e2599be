/**
 * Elicitation in its two modes (client/elicitation): which handler answers which mode, the
 * capability that follows, and what a URL-mode handler is handed.
 *
 * - Form mode: the server asks for fields of a restricted JSON Schema; the answer's content is
 *   checked, and the schema's defaults fill what the user left out (SEP-1034).
 * - URL mode: the server asks the user to open a URL, for what must not pass through the client
 *   (a credential, a payment, a third party's consent). The URL is checked first (https, see
 *   elicitation-url.ts); the handler shows it in full with its domain, asks the user's consent
 *   before opening it, and answers `accept` (consented), `decline` or `cancel`, with no content.
 *
 * A request in a mode the client did not declare is refused with -32602, as the specification
 * requires. The modes declared are those of the handlers given (see handler-options.ts).
 */
import { JSONRPC_INTERNAL_ERROR, JSONRPC_INVALID_PARAMS } from "../protocol/jsonrpc.js";
import { schemas } from "../protocol/schema-registry.js";
import { matching } from "./validate.js";
import type { ElicitFormParams, ElicitResult, ElicitUrlParams } from "../protocol/schemas.js";
import { applyElicitationDefaults } from "./elicitation-defaults.js";
import { ElicitationCompletions } from "./elicitation-completions.js";
import { checkElicitationUrl, type CheckedElicitationUrl } from "./elicitation-url.js";
import { handlerError, type PreparedHandler } from "./handler-checks.js";
import type { ElicitationHandler } from "./handlers.js";

export interface FormElicitationRequest {
  /** `message` and `requestedSchema` (flat: strings, numbers, booleans, enums), as the server sent them. */
  params: ElicitFormParams;
  /** Aborted when the server cancels the request or the connection ends. */
  signal: AbortSignal;
}

export type FormElicitationHandler = (request: FormElicitationRequest) => ElicitResult | Promise<ElicitResult>;

export interface UrlElicitationRequest {
  /** As the server sent them: `mode: "url"`, `message`, `url` and, in 2025-11-25, `elicitationId`. */
  params: ElicitUrlParams;
  /**
   * `params.url`, parsed and checked: https, or http on a loopback host, with no user name or
   * password. Show `url.href` in full before asking for consent, and open exactly it, in the
   * user's own browser (where the client cannot read the page); never fetch it yourself.
   */
  url: URL;
  /** The host of `url`, to show apart from the rest of it (Punycode kept, as it is reached). */
  domain: string;
  /** The domain has a Punycode label (`xn--`): it may imitate another; warn the user. */
  punycode: boolean;
  /**
   * Aborted when the server cancels the request, the connection ends, or, for a -32042, the
   * caller's signal aborts or the client closes.
   */
  signal: AbortSignal;
  /**
   * Resolves when the server sends `notifications/elicitation/complete` for `params.elicitationId`
   * (which a server may never do: let the user say so too); rejects with the signal's reason
   * when the signal aborts first. Without an `elicitationId`, only the signal settles it.
   */
  completed: Promise<void>;
  /**
   * Set when the server refused a request with -32042 until this elicitation is done: that
   * request's method. It is sent again once every listed elicitation's handler resolved with
   * `accept`, so resolve when the user is done (or `completed` resolves), not at consent.
   */
  requiredBy?: string;
}

/** A URL-mode answer carries no content: what the user did happens out of band. */
export interface UrlElicitationResult {
  action: "accept" | "decline" | "cancel";
  _meta?: Record<string, unknown>;
}

export type UrlElicitationHandler = (request: UrlElicitationRequest) => UrlElicitationResult | Promise<UrlElicitationResult>;

/** One handler per mode; each one given declares its mode (`elicitation: { form: {}, url: {} }`). */
export interface ElicitationHandlers {
  /** Answers form-mode requests (a bare `elicitation` function is this one). */
  form?: FormElicitationHandler;
  /** Answers URL-mode requests, and runs the elicitations a -32042 error asks for. */
  url?: UrlElicitationHandler;
}

/** The handler of each mode: a bare function answers form mode. */
export function elicitationModes(option: ElicitationHandler | ElicitationHandlers | undefined): ElicitationHandlers {
  if (option === undefined) return {};
  return typeof option === "function" ? { form: option } : option;
}

/** The `elicitation` capability the handlers imply: `{ form: {} }`, `{ url: {} }` or both. */
export function elicitationCapability(option: ElicitationHandler | ElicitationHandlers): Record<string, object> {
  const modes = elicitationModes(option);
  const capability: Record<string, object> = {};
  if (modes.form) capability.form = {};
  if (modes.url) capability.url = {};
  return capability;
}

/**
 * Answers `elicitation/create`: checks the parameters, hands them to the handler of their mode
 * (-32602 when none answers it, or when the URL is refused), and checks its answer.
 */
export function elicitationAnswerer(option: ElicitationHandler | ElicitationHandlers, completions?: ElicitationCompletions): PreparedHandler {
  const modes = elicitationModes(option);
  return (params) => {
    const request = matching(schemas().ElicitParamsSchema, params);
    if (request === undefined) throw handlerError(JSONRPC_INVALID_PARAMS, "Invalid params for elicitation");
    if (request.mode === "url") {
      const handler = modes.url;
      if (!handler) throw handlerError(JSONRPC_INVALID_PARAMS, "This client did not declare URL mode elicitation");
      const url = checkElicitationUrl(request.url);
      if ("refused" in url) throw handlerError(JSONRPC_INVALID_PARAMS, `The client refused this URL elicitation: ${url.refused}`);
      return async (signal) => {
        const answer = await runUrlElicitation(handler, request, url, signal, completions);
        if (!answer) throw handlerError(JSONRPC_INTERNAL_ERROR, "The client's elicitation handler returned an invalid result");
        return { ...answer };
      };
    }
    const form = modes.form;
    if (!form) throw handlerError(JSONRPC_INVALID_PARAMS, "This client did not declare form mode elicitation");
    return async (signal) => {
      const answer = matching(schemas().ElicitResultSchema, await form({ params: request, signal }));
      if (answer === undefined) throw handlerError(JSONRPC_INTERNAL_ERROR, "The client's elicitation handler returned an invalid result");
      return applyElicitationDefaults(request, answer);
    };
  };
}

/** The answerer of a client without completion tracking (the modern era's input rounds): no id ever completes. */
const UNTRACKED = new ElicitationCompletions();

/**
 * One URL elicitation through its handler, the URL already checked. Resolves with the handler's
 * answer, or undefined when that is not a URL-mode answer (the callers say so their own way).
 */
export async function runUrlElicitation(
  handler: UrlElicitationHandler,
  params: ElicitUrlParams,
  checkedUrl: CheckedElicitationUrl,
  signal: AbortSignal,
  completions: ElicitationCompletions = UNTRACKED,
  requiredBy?: string,
): Promise<UrlElicitationResult | undefined> {
  const request: UrlElicitationRequest = { params, ...checkedUrl, signal, completed: completions.expect(params.elicitationId, signal) };
  if (requiredBy !== undefined) request.requiredBy = requiredBy;
  const answer = matching(schemas().ElicitResultSchema, await handler(request));
  return answer !== undefined && answer.content === undefined ? (answer as UrlElicitationResult) : undefined;
}
