/**
 * A POSTed JSON-RPC batch (the body is an array). Revision 2025-03-26 alone has batches: "MCP
 * implementations MAY support sending JSON-RPC batches, but MUST support receiving JSON-RPC
 * batches" (basic/index, "Batching"), and its POST body "MUST be one of the following: a single
 * JSON-RPC request, notification, or response; an array batching one or more requests and/or
 * notifications; an array batching one or more responses" (transports, "Sending Messages to the
 * Server"). 2025-06-18 removed them, and 2026-07-28 requests are one message each: a batch is
 * taken in a legacy session whose `initialize` settled on 2025-03-26, or in stateless mode from a
 * caller that sends no `MCP-Protocol-Version` (the revision a server assumes then) or names
 * 2025-03-26; anything else is refused, 400, as before.
 *
 * A batch is checked whole before anything of it is handed on (../batch-members.ts): not empty, no
 * `initialize` ("The initialize request MUST NOT be part of a JSON-RPC batch", lifecycle), and
 * not responses mixed with requests or notifications. A member that is not one JSON-RPC message
 * spoils only itself: it gets an Invalid Request answer of its own, and the others are taken
 * (JSON-RPC 2.0, "Batch"). Then each message goes on as if it had been POSTed alone, in order:
 * notifications and responses to the child, requests forwarded (a slot each, a deadline each). A
 * batch of notifications and responses only is answered 202; one holding requests or invalid
 * members gets one reply with all their answers (batch-reply.ts), the invalid members' first.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { JSONRPC_INVALID_REQUEST, isNotification, isRequest, isResponse, type JsonRpcMessage } from "../../protocol/jsonrpc.js";
import { BATCH_REVISION, isModernRevision, revisionAcceptsBatches } from "../../protocol/revisions.js";
import type { Relay } from "../relay.js";
import { sortMembers } from "../batch-members.js";
import { BatchReply } from "./batch-reply.js";
import { headerValue, metaRevisionOf, sessionVersionRefusal } from "./era-of-request.js";
import { SESSION_NOT_FOUND_CODE, jsonRpcError } from "./failure-answers.js";
import { forwardRequest, type ForwardPlan } from "./forward.js";
import type { FrontContext } from "./front-context.js";
import type { PostRequest } from "./post-handler.js";
import { writeEmpty, writeJson } from "./request-reply.js";
import { sessionForwardPlan } from "./session-forward.js";

/** The one revision whose callers may send batches (the rule lives in protocol/revisions.ts). */
export { BATCH_REVISION };

/** Where the members of a batch go, and what their forwarded requests' plans carry. */
interface BatchRoute {
  relay: Relay;
  plan: Partial<ForwardPlan>;
  /** Called once per forwarded request, before it is handed on. */
  requestStarted?(): void;
  sessionId?: string;
}

export async function handleBatch(context: FrontContext, request: IncomingMessage, response: ServerResponse, post: PostRequest, batch: unknown[]): Promise<void> {
  const refuse = (status: number, code: number, words: string, cause: "bad_request" | "unknown_session" = "bad_request"): void => {
    context.telemetry.rejected(cause, status, post.requestId);
    writeJson(response, status, jsonRpcError(null, code, words), post.headers);
  };
  const members = sortMembers(batch);
  if (typeof members === "string") return refuse(400, JSONRPC_INVALID_REQUEST, members);
  const { messages, invalid } = members;

  const header = headerValue(request, "mcp-protocol-version");
  if (isModernRevision(header) || messages.some((m) => metaRevisionOf(m) !== undefined)) {
    return refuse(400, JSONRPC_INVALID_REQUEST, `a 2026-07-28 request is one JSON-RPC message per POST; batches are taken only in revision ${BATCH_REVISION}`);
  }
  const versionRefusal = sessionVersionRefusal(request);
  if (versionRefusal !== undefined) return refuse(400, JSONRPC_INVALID_REQUEST, versionRefusal);
  if (header !== undefined && !revisionAcceptsBatches(header)) return refuse(400, JSONRPC_INVALID_REQUEST, notTaken(header));

  let route: BatchRoute;
  if (context.options.legacy === "stateless") {
    route = { relay: context.poolFor("legacy", post.principal, request.socket), plan: {} };
  } else {
    const sessionId = headerValue(request, "mcp-session-id");
    if (sessionId === undefined) return refuse(400, JSONRPC_INVALID_REQUEST, "Bad Request: a batch needs the Mcp-Session-Id of its session; send initialize first, alone");
    const session = context.sessions.get(sessionId);
    // A session of another principal is as unknown as one that never was.
    if (session === undefined || !session.initialized || !session.belongsTo(post.principal)) {
      return refuse(404, SESSION_NOT_FOUND_CODE, "Session not found: initialize a new session", "unknown_session");
    }
    if (session.revision === undefined || !revisionAcceptsBatches(session.revision)) return refuse(400, JSONRPC_INVALID_REQUEST, notTaken(session.revision ?? "unknown"));
    context.sessions.touch(session);
    const child = session.child!;
    route = {
      relay: child,
      sessionId: session.id,
      requestStarted: () => session.inFlight++,
      plan: sessionForwardPlan(context, session, child),
    };
  }

  const requests = messages.filter(isRequest);
  const done = (m: JsonRpcMessage | "invalid", status: number): void =>
    context.telemetry.requestDone({
      requestId: post.requestId,
      era: "legacy",
      method: m === "invalid" ? "invalid" : "method" in m ? m.method : "response",
      outcome: m === "invalid" ? "rejected" : "ok",
      status,
      durationMs: Date.now() - post.startedAt,
      sessionId: route.sessionId,
      principal: post.principal.principal,
    });
  if (requests.length === 0 && invalid.length === 0) {
    for (const m of messages) {
      if (isNotification(m)) route.relay.notification(m);
      else if (isResponse(m)) route.relay.response(m);
    }
    // "If the input consists solely of (any number of) JSON-RPC responses or notifications ... the
    // server MUST return HTTP status code 202 Accepted with no body."
    writeEmpty(response, 202, post.headers);
    for (const m of messages) done(m, 202);
    return;
  }

  const accept = String(request.headers.accept ?? "*/*");
  const reply = new BatchReply(response, /text\/event-stream|\*\/\*|text\/\*/i.test(accept), post.headers, requests.length + invalid.length);
  // Answered at once, so they lead the array (or the stream, once it opens).
  for (const answer of invalid) {
    reply.member().answer(answer);
    done("invalid", 200);
  }
  // Each forwarded request watches the caller's connection.
  response.setMaxListeners(response.getMaxListeners() + requests.length);
  const forwarded: Array<Promise<void>> = [];
  for (const m of messages) {
    if (isRequest(m)) {
      route.requestStarted?.();
      forwarded.push(forwardRequest(context, response, m, reply.member(), plan(post, route)));
    } else if (isNotification(m)) {
      route.relay.notification(m);
      done(m, 200);
    } else {
      // A batch of responses with invalid members among them: answered for those alone.
      route.relay.response(m);
      done(m, 200);
    }
  }
  await Promise.all(forwarded);
}

function notTaken(revision: string): string {
  return `batches are taken only in revision ${BATCH_REVISION}, not ${revision}; send one JSON-RPC message per POST`;
}

function plan(post: PostRequest, route: BatchRoute): ForwardPlan {
  return {
    requestId: post.requestId,
    era: "legacy",
    startedAt: post.startedAt,
    principal: post.principal.principal,
    ...route.plan,
    relay: async () => route.relay,
  };
}
