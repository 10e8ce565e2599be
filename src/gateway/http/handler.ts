/**
 * The gateway's `node:http` listener, `(request, response)`, which a user may mount in a server
 * of their own. Each request is let in step by step, each step its own status and rejection
 * cause: its `Host` (403: DNS rebinding), its `Origin` (403), its path (404), a CORS preflight
 * (answered here, before credentials, which browsers do not send on one), the gateway taking
 * requests at all (503 while draining), its caller (401 with `WWW-Authenticate: Bearer`); then
 * POST, GET or DELETE (post-handler.ts, session-routes.ts). Nothing a caller sent is logged, and
 * no failure escapes as an unanswered request.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import type { Principal } from "../gateway-options.js";
import type { RejectionCause } from "../ops/telemetry.js";
import { RETRY_AFTER_SECONDS } from "./admission.js";
import { jsonRpcError } from "./failure-answers.js";
import type { FrontContext } from "./front-context.js";
import { checkOrigin, corsHeaders, hostAllowed, preflightHeaders } from "./host-origin.js";
import { handlePost } from "./post-handler.js";
import { writeEmpty, writeJson } from "./request-reply.js";
import { handleDelete, handleGet } from "./session-routes.js";

export type GatewayHandler = (request: IncomingMessage, response: ServerResponse) => void;

export function createHandler(context: FrontContext): GatewayHandler {
  return (request, response) => {
    serve(context, request, response).catch(() => {
      // A fault of the gateway itself: the caller still gets an answer, in our words only.
      context.telemetry.note("handler_fault");
      writeJson(response, 500, jsonRpcError(null, -32603, "the gateway failed to handle this request"));
      if (response.headersSent && !response.writableEnded) response.destroy();
    });
  };
}

async function serve(context: FrontContext, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const requestId = randomUUID();
  const startedAt = Date.now();
  const reject = (cause: RejectionCause, status: number, message: string, headers: OutgoingHttpHeaders = {}): void => {
    context.telemetry.rejected(cause, status, requestId);
    writeJson(response, status, jsonRpcError(null, -32000, message), headers);
  };

  if (!hostAllowed(request, context.hostPolicy)) {
    reject("host", 403, "Forbidden: the Host header does not name this gateway");
    return;
  }
  const origin = checkOrigin(request, context.options.allowedOrigins);
  if (origin === false) {
    reject("origin", 403, "Forbidden: requests from this Origin are not allowed");
    return;
  }
  const cors = origin === undefined ? {} : corsHeaders(origin);
  const path = (request.url ?? "/").split("?")[0];
  if (path !== context.options.path) {
    writeJson(response, 404, jsonRpcError(null, -32000, `Not Found: the MCP endpoint is ${context.options.path}`), cors);
    return;
  }
  if (request.method === "OPTIONS") {
    if (origin === undefined) writeEmpty(response, 204, { Allow: "GET, POST, DELETE, OPTIONS" });
    else writeEmpty(response, 204, preflightHeaders(origin, request));
    return;
  }
  if (context.refusing()) {
    reject("draining", 503, "the gateway is shutting down; try another replica", { ...cors, "Retry-After": String(RETRY_AFTER_SECONDS) });
    return;
  }

  let principal: Principal | undefined;
  try {
    principal = await context.checkCaller(request);
  } catch {
    // A hook that throws lets nobody in; what it threw is not the caller's business.
    context.telemetry.note("authorize_failed");
    reject("unauthorized", 500, "the gateway could not check this caller's credentials", cors);
    return;
  }
  if (principal === undefined) {
    reject("unauthorized", 401, "Unauthorized: give a valid bearer token", { ...cors, "WWW-Authenticate": 'Bearer realm="mcpwire-gateway"' });
    return;
  }

  switch (request.method) {
    case "POST":
      await handlePost(context, request, response, { requestId, startedAt, principal, headers: cors });
      return;
    case "GET":
      handleGet(context, request, response, { requestId, principal, headers: cors });
      return;
    case "DELETE":
      await handleDelete(context, request, response, { requestId, principal, headers: cors });
      return;
    default:
      writeEmpty(response, 405, { ...cors, Allow: "GET, POST, DELETE, OPTIONS" });
  }
}
