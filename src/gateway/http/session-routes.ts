/**
 * GET and DELETE on the MCP endpoint, which only legacy sessions have (transports, "Listening for
 * Messages from the Server", "Session Management", "Resumability and Redelivery"): GET opens the
 * session's stream for what its child says outside any request, resumed from `Last-Event-ID`, or,
 * when `Last-Event-ID` names the stream of a POSTed request, resumes that stream (its events
 * after the id, then live until the answer); DELETE ends the session and stops its child. Without
 * a session (2026-07-28 callers, stateless mode) both are 405; an `MCP-Protocol-Version` that
 * is not a legacy revision is 400, as on a POST; an unknown or dead session is 404, so the
 * caller initializes again.
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import { JSONRPC_INVALID_REQUEST } from "../../protocol/jsonrpc.js";
import type { Principal } from "../gateway-options.js";
import type { LegacySession } from "../sessions/legacy-session.js";
import { namesRequestStream, type ResumePoint } from "../sessions/request-streams.js";
import { headerValue, sessionVersionRefusal } from "./era-of-request.js";
import { SESSION_NOT_FOUND_CODE, jsonRpcError } from "./failure-answers.js";
import type { FrontContext } from "./front-context.js";
import { writeEmpty, writeJson } from "./request-reply.js";
import { KEEP_ALIVE_MS, SseWriter } from "./sse-writer.js";

export interface SessionRouteRequest {
  requestId: string;
  principal: Principal;
  headers: OutgoingHttpHeaders;
}

/** The caller's session, or the answer already sent (405, 400 for its protocol version, or 404). */
function sessionOf(context: FrontContext, request: IncomingMessage, response: ServerResponse, route: SessionRouteRequest): LegacySession | undefined {
  const id = headerValue(request, "mcp-session-id");
  if (context.options.legacy === "stateless" || id === undefined) {
    writeEmpty(response, 405, { ...route.headers, Allow: "POST" });
    return undefined;
  }
  // The same rule as a POST's: a DELETE refused here leaves its session as it was.
  const refusal = sessionVersionRefusal(request);
  if (refusal !== undefined) {
    context.telemetry.rejected("bad_request", 400, route.requestId);
    writeJson(response, 400, jsonRpcError(null, JSONRPC_INVALID_REQUEST, refusal), route.headers);
    return undefined;
  }
  const session = context.sessions.get(id);
  if (session === undefined || !session.initialized || !session.belongsTo(route.principal)) {
    context.telemetry.rejected("unknown_session", 404, route.requestId);
    writeJson(response, 404, jsonRpcError(null, SESSION_NOT_FOUND_CODE, "Session not found: initialize a new session"), route.headers);
    return undefined;
  }
  return session;
}

export function handleGet(context: FrontContext, request: IncomingMessage, response: ServerResponse, route: SessionRouteRequest): void {
  if (!/text\/event-stream|\*\/\*/i.test(String(request.headers.accept ?? ""))) {
    context.telemetry.rejected("bad_request", 406, route.requestId);
    writeJson(response, 406, jsonRpcError(null, -32600, "a GET on the MCP endpoint must accept text/event-stream"), route.headers);
    return;
  }
  const session = sessionOf(context, request, response, route);
  if (session === undefined) return;
  context.sessions.touch(session);
  const lastEventId = headerValue(request, "last-event-id");
  const resumed = lastEventId !== undefined && namesRequestStream(lastEventId) ? session.requestStreams.find(lastEventId) : undefined;
  if (resumed !== undefined && "refused" in resumed) {
    const [status, words] = RESUME_REFUSALS[resumed.refused];
    context.telemetry.rejected("bad_request", status, route.requestId);
    writeJson(response, status, jsonRpcError(null, -32000, words), route.headers);
    return;
  }
  const stream = new SseWriter(response);
  stream.open(200, { ...route.headers, "Mcp-Session-Id": session.id });
  if (resumed === undefined) session.attachStream(stream, lastEventId);
  else resumed.stream.connect(stream, resumed.after);
  const keepAlive = setInterval(() => {
    if (!stream.keepAlive()) clearInterval(keepAlive);
  }, KEEP_ALIVE_MS);
  keepAlive.unref();
  response.once("close", () => {
    clearInterval(keepAlive);
    if (resumed === undefined) session.detachStream(stream);
    else resumed.stream.disconnect(stream, response.writableFinished);
  });
}

/**
 * Why a request's stream cannot be resumed, as the caller is told: 400 for an id it cannot resume
 * from, so the caller learns at once that the rest will not come, rather than wait on a stream
 * with a hole. A stream a connection still carries is taken from it (request-streams.ts).
 */
const RESUME_REFUSALS: Record<Extract<ResumePoint, { refused: string }>["refused"], [number, string]> = {
  dropped: [400, "the events after this Last-Event-ID are no longer kept (at most maxStoredEvents per session): the stream cannot be resumed"],
  unknown: [400, "this Last-Event-ID names no stream of the session that can be resumed: the id was never sent, or the stream's answer went out in full"],
};

export async function handleDelete(context: FrontContext, request: IncomingMessage, response: ServerResponse, route: SessionRouteRequest): Promise<void> {
  const session = sessionOf(context, request, response, route);
  if (session === undefined) return;
  // Answered once the child is gone, so a caller that deletes and counts processes sees none.
  await context.sessions.end(session, "deleted");
  writeEmpty(response, 200, route.headers);
}
