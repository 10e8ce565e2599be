/**
 * A POST to the MCP endpoint, once its caller is let in: the body read within `maxBodyBytes`
 * (413 before parsing), parsed as one JSON-RPC message (400 otherwise), its era told, and then
 * routed (a JSON array, a batch, goes to post-batch.ts): a 2026-07-28 request to the pool (its mirrored headers checked first, `Mcp-Param-*`
 * included); a legacy one to
 * its session's child (session mode; `initialize` opens the session) or to the pool (stateless
 * mode). Notifications and responses are answered 202 once handed on.
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import {
  JSONRPC_INTERNAL_ERROR,
  JSONRPC_INVALID_REQUEST,
  JSONRPC_PARSE_ERROR,
  isNotification,
  isRequest,
  toMessage,
  type JsonRpcMessage,
  type JsonRpcRequest,
} from "../../protocol/jsonrpc.js";
import { Method, Notification } from "../../protocol/methods.js";
import { HEADER_MISMATCH, UNSUPPORTED_PROTOCOL_VERSION } from "../../protocol/modern.js";
import { LEGACY_REVISIONS, MODERN_REVISIONS } from "../../protocol/revisions.js";
import type { Principal } from "../gateway-options.js";
import type { RejectionCause } from "../ops/telemetry.js";
import type { LegacySession } from "../sessions/legacy-session.js";
import { RETRY_AFTER_SECONDS } from "./admission.js";
import { readBody } from "./body-reader.js";
import { eraOf, headerValue } from "./era-of-request.js";
import { SESSION_NOT_FOUND_CODE, jsonRpcError } from "./failure-answers.js";
import { forwardRequest, type ForwardPlan } from "./forward.js";
import type { FrontContext } from "./front-context.js";
import { modernHeaderMismatch } from "./modern-headers.js";
import { paramHeaderMismatch } from "./param-headers.js";
import { handleBatch } from "./post-batch.js";
import { RequestReply, writeEmpty, writeJson } from "./request-reply.js";
import { sessionForwardPlan } from "./session-forward.js";

/** The revision whose callers get the priming event first on a stream (2025-11-25, transports, "Sending Messages to the Server"). */
const PRIMED_REVISION = "2025-11-25";

export interface PostRequest {
  requestId: string;
  startedAt: number;
  principal: Principal;
  /** CORS headers for the caller's origin, if it sent one. */
  headers: OutgoingHttpHeaders;
}

export async function handlePost(context: FrontContext, request: IncomingMessage, response: ServerResponse, post: PostRequest): Promise<void> {
  const reject = (cause: RejectionCause, status: number, body: unknown, extra: OutgoingHttpHeaders = {}): void => {
    context.telemetry.rejected(cause, status, post.requestId);
    writeJson(response, status, body, { ...post.headers, ...extra });
  };
  const contentType = request.headers["content-type"];
  if (contentType !== undefined && !/^application\/json\s*(;|$)/i.test(contentType)) {
    context.telemetry.rejected("bad_request", 415, post.requestId);
    writeJson(response, 415, jsonRpcError(null, JSONRPC_INVALID_REQUEST, "the body must be application/json"), post.headers);
    return;
  }
  const body = await readBody(request, context.options.maxBodyBytes);
  if (body.kind === "aborted") return;
  if (body.kind === "too_large") {
    context.telemetry.rejected("body_too_large", 413, post.requestId);
    // The rest of the body is never read: the connection closes once the answer is out.
    response.shouldKeepAlive = false;
    writeJson(response, 413, jsonRpcError(null, JSONRPC_INVALID_REQUEST, `the body is larger than the gateway's limit of ${context.options.maxBodyBytes} bytes`), {
      ...post.headers,
      Connection: "close",
    });
    response.once("finish", () => request.destroy());
    return;
  }

  let value: unknown;
  try {
    value = JSON.parse(body.text);
  } catch {
    reject("bad_request", 400, jsonRpcError(null, JSONRPC_PARSE_ERROR, "the body is not JSON"));
    return;
  }
  // A batch is taken in revision 2025-03-26 only, and refused otherwise (post-batch.ts).
  if (Array.isArray(value)) {
    await handleBatch(context, request, response, post, value);
    return;
  }
  let message: JsonRpcMessage;
  try {
    message = toMessage(value);
  } catch {
    reject("bad_request", 400, jsonRpcError(null, JSONRPC_INVALID_REQUEST, "the body is not one JSON-RPC 2.0 message"));
    return;
  }
  const idOf = (m: JsonRpcMessage) => (isRequest(m) ? m.id : null);
  const verdict = eraOf(message, request);
  const era = verdict.era === "modern" ? "modern" : "legacy";
  const method = "method" in message ? message.method : "response";
  const accepted = (sessionId?: string): void => {
    writeEmpty(response, 202, post.headers);
    context.telemetry.requestDone({ requestId: post.requestId, era, method, outcome: "ok", status: 202, durationMs: Date.now() - post.startedAt, sessionId, principal: post.principal.principal });
  };
  // Once the message is read, a refusal is also a request of its era and method, counted as rejected.
  const refuse = (cause: RejectionCause, status: number, answer: unknown, extra: OutgoingHttpHeaders = {}): void => {
    reject(cause, status, answer, extra);
    context.telemetry.requestDone({ requestId: post.requestId, era, method, outcome: "rejected", status, durationMs: Date.now() - post.startedAt, principal: post.principal.principal });
  };
  if (verdict.era === "invalid") {
    const refusal =
      verdict.unsupportedRevision === undefined
        ? jsonRpcError(idOf(message), JSONRPC_INVALID_REQUEST, verdict.message)
        : jsonRpcError(idOf(message), UNSUPPORTED_PROTOCOL_VERSION, `Unsupported protocol version: ${verdict.message}`, {
            supported: [...MODERN_REVISIONS, ...LEGACY_REVISIONS],
            requested: verdict.unsupportedRevision,
          });
    refuse("bad_request", 400, refusal);
    return;
  }
  const accept = String(request.headers.accept ?? "*/*");
  const sse = /text\/event-stream|\*\/\*|text\/\*/i.test(accept);
  const reply = (): RequestReply => new RequestReply(response, { sse }, post.headers);
  const plan = (era: "modern" | "legacy", fields: Partial<ForwardPlan> & Pick<ForwardPlan, "relay">): ForwardPlan => ({
    requestId: post.requestId,
    era,
    startedAt: post.startedAt,
    principal: post.principal.principal,
    ...fields,
  });

  if (verdict.era === "modern") {
    if (!isRequest(message)) {
      if (isNotification(message)) {
        context.poolFor("modern", post.principal, request.socket).notification(message);
        accepted();
      } else {
        refuse("bad_request", 400, jsonRpcError(null, JSONRPC_INVALID_REQUEST, "a 2026-07-28 client sends no responses"));
      }
      return;
    }
    const mismatch = modernHeaderMismatch(message, request);
    if (mismatch !== undefined) {
      refuse("bad_request", 400, jsonRpcError(message.id, HEADER_MISMATCH, `Header mismatch: ${mismatch}`));
      return;
    }
    const paramRefusal = await toolCallRefusal(context, message, request);
    if (paramRefusal !== undefined) {
      if (paramRefusal.unavailable) {
        refuse("not_ready", 503, jsonRpcError(message.id, JSONRPC_INTERNAL_ERROR, paramRefusal.words, { reason: "UNAVAILABLE" }), { "Retry-After": String(RETRY_AFTER_SECONDS) });
      } else {
        refuse("bad_request", 400, jsonRpcError(message.id, HEADER_MISMATCH, `Header mismatch: ${paramRefusal.words}`));
      }
      return;
    }
    await forwardRequest(
      context,
      response,
      message,
      reply(),
      plan("modern", {
        relay: async () => context.poolFor("modern", post.principal, request.socket),
        // A 2026-07-28 server tells of a changed tool list on a caller's listen stream only.
        heard: (m) => {
          if ("method" in m && m.method === Notification.toolsListChanged) context.toolHeaders.toolsChanged();
        },
      }),
    );
    return;
  }

  if (context.options.legacy === "stateless") {
    if (isRequest(message)) {
      // Without a session, a caller that drops its connection still cancels its request. Event
      // ids must be unique "with that specific client, if session management is not in use"
      // (transports, "Resumability and Redelivery"), and this gateway cannot tell one client from
      // another here: its stream cannot be resumed, and no GET stream could carry what the child
      // asks. Nothing of the request could reach its caller any more, so running it on would only
      // hold a slot of the shared pool until its timeout.
      await forwardRequest(context, response, message, reply(), plan("legacy", { relay: async () => context.poolFor("legacy", post.principal, request.socket) }));
      return;
    }
    const pool = context.poolFor("legacy", post.principal, request.socket);
    if (isNotification(message)) pool.notification(message);
    else pool.response(message);
    accepted();
    return;
  }

  // Session mode.
  if (verdict.sessionId === undefined) {
    // An initialize whose caller leaves is cancelled, and its session ended: the caller never
    // learned the session's id, so nobody could use it or resume its stream.
    if (isRequest(message) && message.method === "initialize") {
      await openSession(context, response, message, reply(), post, plan);
      return;
    }
    refuse("bad_request", 400, jsonRpcError(idOf(message), JSONRPC_INVALID_REQUEST, "Bad Request: this request needs the Mcp-Session-Id of its session; send initialize first"));
    return;
  }
  const session = context.sessions.get(verdict.sessionId);
  // A session of another principal is as unknown as one that never was.
  if (session === undefined || !session.initialized || !session.belongsTo(post.principal)) {
    refuse("unknown_session", 404, jsonRpcError(idOf(message), SESSION_NOT_FOUND_CODE, "Session not found: initialize a new session"));
    return;
  }
  context.sessions.touch(session);
  const child = session.child!;
  if (isRequest(message)) {
    session.inFlight++;
    // Its reply stream, if it becomes one, can be resumed: the session tells this caller apart.
    const primed = headerValue(request, "mcp-protocol-version") === PRIMED_REVISION;
    const resumableReply = new RequestReply(response, { sse, resumable: { streams: session.requestStreams, primed } }, post.headers);
    await forwardRequest(
      context,
      response,
      message,
      resumableReply,
      plan("legacy", sessionForwardPlan(context, session, child)),
    );
    return;
  }
  if (isNotification(message)) child.notification(message);
  else child.response(message);
  accepted(session.id);
}

/** `initialize` without a session: a session within the caps, its child spawned, its id on the answer. */
async function openSession(
  context: FrontContext,
  response: ServerResponse,
  message: JsonRpcRequest,
  reply: RequestReply,
  post: PostRequest,
  plan: (era: "legacy", fields: Partial<ForwardPlan> & Pick<ForwardPlan, "relay">) => ForwardPlan,
): Promise<void> {
  const opened = context.sessions.open(post.principal);
  if ("refused" in opened) {
    const status = opened.refused === "sessions_full" ? 503 : 429;
    context.telemetry.rejected(opened.refused, status, post.requestId);
    context.telemetry.requestDone({ requestId: post.requestId, era: "legacy", method: message.method, outcome: "rejected", status, durationMs: Date.now() - post.startedAt, principal: post.principal.principal });
    const words = opened.refused === "sessions_full" ? "the gateway holds as many sessions as it may; try again later" : "this caller holds as many sessions as it may; end one (DELETE) first";
    writeJson(response, status, jsonRpcError(message.id, -32000, words), { ...post.headers, ...(status === 503 ? { "Retry-After": String(RETRY_AFTER_SECONDS) } : {}) });
    return;
  }
  const session: LegacySession = opened.session;
  let answeredOk = false;
  reply.setHeader("Mcp-Session-Id", session.id);
  // Its initialize is a request in flight like any other: a child slower to spawn and answer than
  // sessionIdleMs must not be reaped under it.
  session.inFlight++;
  await forwardRequest(
    context,
    response,
    message,
    reply,
    plan("legacy", {
      sessionId: session.id,
      relay: async () => {
        const child = context.openSessionChild(
          {
            sessionId: session.id,
            message: (m) => session.unsolicited(m),
            exited: () => void context.sessions.end(session, "child_exited"),
          },
          post.principal,
        );
        session.child = child;
        // The session ended (the gateway closing) while it was opened.
        if (session.ended) void child.close();
        return child;
      },
      answered: (answer) => {
        answeredOk = "result" in answer;
        session.initialized = answeredOk;
        if ("result" in answer && typeof answer.result.protocolVersion === "string") session.revision = answer.result.protocolVersion;
        if (!answeredOk) reply.removeHeader("Mcp-Session-Id");
      },
      finished: () => {
        session.inFlight--;
        // A session whose initialize failed never existed for the caller.
        if (!answeredOk) void context.sessions.end(session, "failed_to_start");
        else context.sessions.touch(session);
      },
      childPid: () => session.child?.pid,
    }),
  );
}

/**
 * A modern `tools/call` whose `Mcp-Param-*` headers do not match its arguments (param-headers.ts),
 * or whose tool's annotations could not be learned (the catalog's listing failed): the gateway
 * checks before forwarding, or refuses (see tool-header-catalog.ts).
 */
async function toolCallRefusal(context: FrontContext, message: JsonRpcRequest, request: IncomingMessage): Promise<{ words: string; unavailable?: true } | undefined> {
  if (message.method !== Method.toolsCall) return undefined;
  const name = message.params?.name;
  if (typeof name !== "string") return undefined;
  const tool = await context.toolHeaders.lookup(name);
  if (tool.kind === "unavailable") {
    return { words: "the gateway could not list the server's tools to check this call's Mcp-Param headers; try again later", unavailable: true };
  }
  if (tool.kind !== "params") return undefined;
  const words = paramHeaderMismatch(tool.params, message.params?.arguments, request);
  return words === undefined ? undefined : { words };
}
