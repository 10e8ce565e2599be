/**
 * One request through the gateway, from its slot to its answer: a place among `maxRequests` (or
 * in the bounded queue, or 503 with `Retry-After` past it), the relay found (a session's child is
 * spawned here, inside the slot), the request handed to it with a signal that aborts when the
 * caller goes away or `requestTimeoutMs` passes, and whatever happens an answer to the caller and
 * one `requestDone` report. On a timeout the caller is answered at once, without waiting for the
 * child: the relay is told through the signal (it sends `notifications/cancelled`).
 *
 * A caller that closes its connection cancels its request, except in a legacy session
 * (`outlivesCaller`), where the request runs on to its answer or its timeout and is reported
 * then, with `caller` saying whether a resumed stream carried the answer.
 */
import type { ServerResponse } from "node:http";
import { McpTransportError, asMcpTransportError } from "../../errors.js";
import { isFailure, type JsonRpcMessage, type JsonRpcRequest, type JsonRpcResponse } from "../../protocol/jsonrpc.js";
import { HEADER_MISMATCH, MISSING_REQUIRED_CLIENT_CAPABILITY, ModernMethod, UNSUPPORTED_PROTOCOL_VERSION } from "../../protocol/modern.js";
import type { RequestEra, RequestOutcome } from "../ops/telemetry.js";
import type { Relay, RequestSink } from "../relay.js";
import { RETRY_AFTER_SECONDS } from "./admission.js";
import { failureAnswer, jsonRpcError, outcomeOf } from "./failure-answers.js";
import type { FrontContext } from "./front-context.js";
import type { CallerReply } from "./request-reply.js";
import { KEEP_ALIVE_MS } from "./sse-writer.js";

/** What the front knows of one forwarded request, for its answer and its report. */
export interface ForwardPlan {
  requestId: string;
  era: RequestEra;
  startedAt: number;
  principal: string;
  sessionId?: string;
  /** The relay to use, found (or spawned) once the request holds a slot. */
  relay(): Promise<Relay>;
  /** A message about the request the caller's reply cannot carry (it takes JSON only). */
  undeliverable?(message: JsonRpcMessage): void;
  /** Every message the child sends about the request, seen before the caller gets it (the gateway's own bookkeeping listens). */
  heard?(message: JsonRpcMessage): void;
  /** Called just before the answer, the child's or an error of ours, goes to the caller (a new session keeps its id, or drops it on an error). */
  answered?(response: JsonRpcResponse): void;
  /** Called once, however the request ended. */
  finished?(): void;
  /**
   * The caller closing its connection does not cancel the request (legacy session mode:
   * transports, "Sending Messages to the Server": "Disconnection SHOULD NOT be interpreted as the
   * client cancelling its request"). It runs on, bounded by `requestTimeoutMs` and the session's
   * life; its stream, if it had become one, is kept for a resumption. The caller cancels with
   * `notifications/cancelled`.
   */
  outlivesCaller?: boolean;
  childPid?(): number | undefined;
}

/** The caller went away before its answer (its connection or stream closed). */
export function callerGone(): McpTransportError {
  return new McpTransportError("DISCONNECTED", "the caller closed its connection before the answer");
}

export async function forwardRequest(
  context: FrontContext,
  response: ServerResponse,
  message: JsonRpcRequest,
  reply: CallerReply,
  plan: ForwardPlan,
): Promise<void> {
  const { telemetry, options } = context;
  const controller = new AbortController();
  // What the request holds until it finishes: its slot, and its deadline.
  const held: { release?: () => void; timer?: NodeJS.Timeout; keepAlive?: NodeJS.Timeout } = {};
  let finishedOnce = false;
  let callerLeft = false;

  const finish = (how: RequestOutcome, httpStatus: number): void => {
    if (finishedOnce) return;
    finishedOnce = true;
    clearTimeout(held.timer);
    clearInterval(held.keepAlive);
    response.off("close", onCallerClosed);
    untrack();
    held.release?.();
    plan.finished?.();
    telemetry.requestDone({
      requestId: plan.requestId,
      era: plan.era,
      method: message.method,
      outcome: how,
      status: httpStatus,
      durationMs: Date.now() - plan.startedAt,
      sessionId: plan.sessionId,
      principal: plan.principal,
      childPid: plan.childPid?.(),
      caller: callerLeft ? (reply.answerCarried ? "resumed" : "gone") : undefined,
    });
  };
  const fail = (error: McpTransportError): void => {
    if (finishedOnce) return;
    // No server process to take it: 503, so a balancer may send the caller elsewhere.
    const status = error.reason === "UNAVAILABLE" && !reply.streaming ? 503 : 200;
    if (status === 503) reply.setHeader("Retry-After", String(RETRY_AFTER_SECONDS));
    const answer = failureAnswer(message.id, error);
    plan.answered?.(answer);
    reply.answer(answer, status);
    finish(outcomeOf(error), status);
  };
  const onCallerClosed = (): void => {
    if (finishedOnce) return;
    if (plan.outlivesCaller) {
      // Noted now, when it happens; the request's own line follows when it ends.
      callerLeft = true;
      telemetry.note("caller_left", { requestId: plan.requestId });
      return;
    }
    // The caller can no longer be answered; its request is cancelled at the child. Reported
    // first: the relay fails the request from inside the abort.
    finish("cancelled", 499);
    controller.abort(callerGone());
  };
  response.on("close", onCallerClosed);
  // The drain may answer it: the caller gets the error, the child is told through the signal.
  const untrack = context.inFlight.add((error) => {
    fail(error);
    controller.abort(error);
  });

  // A `subscriptions/listen` stream stays open by design (basic/patterns/subscriptions): it holds
  // no request slot and has no deadline, or a few listeners would starve every other caller and
  // each stream would end at the request timeout. It takes a place among `maxListenStreams`
  // instead, and gets a comment line now and then.
  const longLived = message.method === ModernMethod.subscriptionsListen;
  let slot: (() => void) | undefined;
  try {
    slot = longLived ? context.listenStreams.acquire() : await context.admission.acquire(controller.signal);
  } catch {
    return; // the caller left while queued: already reported
  }
  if (slot === undefined) {
    telemetry.rejected(longLived ? "listen_streams_full" : "queue_full", 503, plan.requestId);
    reply.setHeader("Retry-After", String(RETRY_AFTER_SECONDS));
    const busy = jsonRpcError(
      message.id,
      -32000,
      longLived
        ? `the gateway has its limit of ${options.maxListenStreams} subscriptions/listen streams open; try again later`
        : "the gateway is at its limit of requests in flight and queued; try again later",
    );
    plan.answered?.(busy);
    reply.answer(busy, 503);
    finish("rejected", 503);
    return;
  }
  held.release = slot;
  if (finishedOnce) {
    slot();
    return;
  }
  if (longLived) {
    held.keepAlive = setInterval(() => reply.keepAlive(), KEEP_ALIVE_MS);
    held.keepAlive.unref();
  } else {
    held.timer = setTimeout(() => {
      const error = new McpTransportError("TIMEOUT", `the request timed out in the gateway after ${options.requestTimeoutMs} ms`, {
        timeoutMs: options.requestTimeoutMs,
        method: message.method,
      });
      // Answered first, in the gateway's words; then the relay is told (notifications/cancelled).
      fail(error);
      controller.abort(error);
    }, options.requestTimeoutMs);
  }

  let relay: Relay;
  try {
    relay = await plan.relay();
  } catch (error) {
    if (finishedOnce) return;
    telemetry.rejected("not_ready", 503, plan.requestId);
    reply.setHeader("Retry-After", String(RETRY_AFTER_SECONDS));
    const unavailable = failureAnswer(message.id, asMcpTransportError(error, "UNAVAILABLE", "no server process could be started"));
    plan.answered?.(unavailable);
    reply.answer(unavailable, 503);
    finish("rejected", 503);
    return;
  }
  if (finishedOnce) return;

  const sink: RequestSink = {
    message(child) {
      plan.heard?.(child);
      if (finishedOnce) return;
      if (!reply.message(child)) plan.undeliverable?.(child);
    },
    answer(answer) {
      if (finishedOnce) return;
      const httpStatus = plan.era === "modern" ? modernStatus(answer, message.method) : 200;
      plan.answered?.(answer);
      reply.answer(answer, httpStatus);
      finish(isFailure(answer) ? "error" : "ok", reply.streaming ? 200 : httpStatus);
    },
    failed(error) {
      fail(error);
    },
  };
  try {
    relay.request(message, sink, controller.signal);
  } catch (error) {
    fail(asMcpTransportError(error, "UNAVAILABLE", "the request could not be handed to a server process"));
  }
}

/**
 * The HTTP status of a modern answer sent as JSON (streamable-http, "Protocol Version Header"):
 * 400 for the errors about the request's headers, revision or capabilities, 404 for a method the
 * server does not implement, 200 otherwise.
 *
 * Except for `server/discover`, which every modern server MUST implement: an error answer to it
 * that is not a modern one comes from a server of the legacy era only, and is sent with 400, as
 * a legacy HTTP server answers a modern request. A client falls back to `initialize` on a 400
 * whose body is not a modern error (streamable-http, "Backward Compatibility"), while a 404 with
 * -32601 would tell it that a modern server lacks the method.
 */
export function modernStatus(answer: JsonRpcResponse, method?: string): number {
  if (!isFailure(answer)) return 200;
  const code = answer.error.code;
  if (code === HEADER_MISMATCH || code === UNSUPPORTED_PROTOCOL_VERSION || code === MISSING_REQUIRED_CLIENT_CAPABILITY) return 400;
  if (method === ModernMethod.discover) return 400;
  return code === -32601 ? 404 : 200;
}
