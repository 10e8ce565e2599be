/**
 * The parts of a gateway that serve requests: the HTTP front (http/), the legacy sessions
 * (sessions/) and the children (children/, unless the caller gives its own). gateway.ts loads
 * this module with a dynamic import when a gateway is created, so that a program that imports
 * mcpwire and never serves (a client) does not load the code that serves: about two thirds of
 * the gateway (bench/RESULTS.md, "Where a stdio client's memory goes").
 */
import type { IncomingMessage } from "node:http";
import type { Principal } from "./gateway-options.js";
import type { ResolvedGatewayOptions } from "./check-options.js";
import { Admission } from "./http/admission.js";
import { declaredTooLarge } from "./http/body-reader.js";
import type { CallerCheck } from "./http/caller-auth.js";
import type { FrontContext } from "./http/front-context.js";
import { createHandler, type GatewayHandler } from "./http/handler.js";
import { InFlightRequests } from "./http/in-flight.js";
import { ListenStreams } from "./http/listen-streams.js";
import { listToolsThrough } from "./http/list-tools-page.js";
import { ToolHeaderCatalog } from "./http/tool-header-catalog.js";
import type { GatewayTelemetryRecorder } from "./ops/gateway-telemetry.js";
import type { Readiness } from "./ops/readiness.js";
import { SessionStore } from "./sessions/session-store.js";
import { defaultChildren } from "./default-children.js";
import type { GatewayChildren, GatewayChildrenFactory } from "./gateway.js";
import { isLoopbackHost } from "../util/loopback.js";

/** Whom the gateway's own requests (its `tools/list`) are relayed for; no caller's name holds a NUL. */
const GATEWAY_PRINCIPAL: Principal = Object.freeze({ principal: "\0gateway" });

/** What the core is built from: the checked options and what gateway.ts built at once. */
export interface GatewayCoreInputs {
  options: ResolvedGatewayOptions;
  telemetry: GatewayTelemetryRecorder;
  readiness: Readiness;
  checkCaller: CallerCheck;
  /** The caller's children, or undefined for the default ones. */
  children: GatewayChildrenFactory | undefined;
  /** True once the gateway stops taking requests (draining, closing). */
  refusing(): boolean;
}

export interface GatewayCore {
  readonly handler: GatewayHandler;
  /** Whether a request declares a body past `maxBodyBytes`: answered 413 without a `100 Continue`. */
  declaresTooLarge(request: IncomingMessage): boolean;
  readonly children: GatewayChildren;
  readonly sessions: SessionStore;
  readonly inFlight: InFlightRequests;
  readonly admission: Admission;
  /** The children's warm-up, started as the core is built; never rejects. */
  readonly childrenStarted: Promise<void>;
}

export function buildGatewayCore(inputs: GatewayCoreInputs): GatewayCore {
  const { options, telemetry, readiness } = inputs;
  const childrenFactory = inputs.children ?? defaultChildren;
  // Filled through the children, which are built next; it lists nothing before the first tools/call.
  const toolHeaders = new ToolHeaderCatalog({ listPage: listToolsThrough(() => children.poolFor("modern", GATEWAY_PRINCIPAL)) });
  const children = childrenFactory(options, { telemetry, readiness, toolsChanged: () => toolHeaders.toolsChanged() });

  const inFlight = new InFlightRequests();
  const sessions = new SessionStore({
    maxSessions: options.maxSessions,
    maxSessionsPerPrincipal: options.maxSessionsPerPrincipal,
    sessionIdleMs: options.sessionIdleMs,
    maxStoredEvents: options.maxStoredEvents,
    counted: (count) => telemetry.sessions(count),
    ended: (_session, cause) => telemetry.note("session_ended", { cause }),
  });
  const admission = new Admission(options.maxRequests, options.maxQueue, ({ running, queued }) => telemetry.inFlight(running, queued));
  const context: FrontContext = {
    options,
    telemetry,
    admission,
    listenStreams: new ListenStreams(options.maxListenStreams, (open) => telemetry.listenStreams(open)),
    sessions,
    poolFor: (era, principal, connection) => children.poolFor(era, principal, connection),
    openSessionChild: children.openSessionChild,
    inFlight,
    toolHeaders,
    hostPolicy: { allowedHosts: options.allowedHosts, loopbackNames: isLoopbackHost(options.listen.host) },
    checkCaller: inputs.checkCaller,
    refusing: inputs.refusing,
  };
  const handler = createHandler(context);
  // Warmed now, not at listen(): the handler may be mounted in a server of the user's own.
  const childrenStarted = children.start();
  const declaresTooLarge = (request: IncomingMessage): boolean => declaredTooLarge(request, options.maxBodyBytes);
  return { handler, declaresTooLarge, children, sessions, inFlight, admission, childrenStarted };
}
