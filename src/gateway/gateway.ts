/**
 * `createGateway(options)`: a stdio MCP server served over Streamable HTTP, both protocol eras on
 * one endpoint. It puts together the checked options, the HTTP front (http/), the legacy sessions
 * (sessions/), the children (children/: the pool and the session relays) and the operations
 * (ops/: telemetry, readiness, the admin server, the drain).
 *
 * `handler` is a `node:http` listener that can be mounted in a server of one's own; `listen()`
 * serves it on `options.listen` and resolves with the endpoint's URL; `close()` drains (requests
 * are still served for `drainDelayMs`, then refused; those in flight get `drainMs`), stops every
 * child and resolves once no child and no socket is left.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { GatewayOptions, Principal } from "./gateway-options.js";
import { checkGatewayOptions, type ResolvedGatewayOptions } from "./check-options.js";
import { Admission, type AdmissionCounts } from "./http/admission.js";
import { ListenStreams } from "./http/listen-streams.js";
import { callerCheck } from "./http/caller-auth.js";
import type { FrontContext } from "./http/front-context.js";
import { createHandler, type GatewayHandler } from "./http/handler.js";
import { InFlightRequests } from "./http/in-flight.js";
import { listToolsThrough } from "./http/list-tools-page.js";
import { ToolHeaderCatalog } from "./http/tool-header-catalog.js";
import { startAdminServer, type AdminServer } from "./ops/admin-server.js";
import { Drain, type DrainResult } from "./ops/drain.js";
import { createGatewayTelemetry, type GatewayTelemetryRecorder } from "./ops/gateway-telemetry.js";
import { capacityReadiness } from "./ops/capacity.js";
import { readinessCollector } from "./ops/readiness-metrics.js";
import { Readiness } from "./ops/readiness.js";
import type { GatewayTelemetry } from "./ops/telemetry.js";
import type { Relay } from "./relay.js";
import type { OpenSessionChild } from "./sessions/session-child.js";
import { SessionStore } from "./sessions/session-store.js";
import { defaultChildren } from "./default-children.js";
import { isLoopbackHost } from "../util/loopback.js";

/** Whom the gateway's own requests (its `tools/list`) are relayed for; no caller's name holds a NUL. */
const GATEWAY_PRINCIPAL: Principal = Object.freeze({ principal: "\0gateway" });

/** How long answered connections get to flush after the front stops listening, before they are cut. */
export const FRONT_CLOSE_GRACE_MS = 1_000;

/**
 * The children of one gateway, as the front uses them: the pool's relay for a caller, a session's
 * own child, warming and stopping. default-children.ts builds the default from gateway/children/.
 */
export interface GatewayChildren {
  /** The pool's relay for one principal's requests, of the modern era or (stateless mode) the legacy one. */
  poolFor(era: "modern" | "legacy", principal: Principal): Relay;
  openSessionChild: OpenSessionChild;
  /** Warms the pool; reports to the readiness. Never rejects. */
  start(): Promise<void>;
  /** Stops every pool child; `hurry` aborted means without the close ladder's waits. Resolves once all exited. */
  close(hurry: AbortSignal): Promise<void>;
}

/**
 * What builds the children, given the checked options and the operations they report to.
 * `toolsChanged` is to be called when a child sends `notifications/tools/list_changed` outside a
 * request: the front then lists the tools again before it checks `Mcp-Param-*` headers.
 */
export type GatewayChildrenFactory = (
  options: ResolvedGatewayOptions,
  ops: { telemetry: GatewayTelemetry; readiness: Readiness; toolsChanged?: () => void },
) => GatewayChildren;

/** Parts of a gateway that may be given instead of the defaults: for tests, and for embedding. */
export interface GatewayParts {
  /** @default the pool and session relays of gateway/children/ */
  children?: GatewayChildrenFactory;
  /** @default createGatewayTelemetry({ log: options.log }) */
  telemetry?: GatewayTelemetryRecorder;
}

const PART_NAMES: ReadonlySet<string> = new Set(["children", "telemetry"]);

export interface Gateway {
  /** The `node:http` listener of the MCP endpoint (and its CORS preflights), to mount anywhere. */
  readonly handler: GatewayHandler;
  /**
   * Serves `handler` on `options.listen` (and the admin endpoints on `adminListen`), warms the pool,
   * and resolves with the endpoint's URL (`http://127.0.0.1:8080/mcp`). Rejects when the address
   * cannot be bound. Once only.
   */
  listen(): Promise<string>;
  /** The drain, then every child stopped; resolves once nothing is left. Idempotent. */
  close(): Promise<void>;
  /** The drain itself, for the CLI's signals: `start()` on SIGTERM, `hurry()` on a second signal. */
  readonly drain: Drain;
  /** What `/readyz` answers. */
  readonly readiness: Readiness;
  readonly telemetry: GatewayTelemetryRecorder;
  /** Where the admin endpoints listen, once `listen()` resolved with `adminListen` given. */
  readonly adminUrl: string | undefined;
  /** Legacy sessions open now. */
  readonly sessionCount: number;
  /** Requests holding a slot now, and those waiting for one. */
  readonly requests: AdmissionCounts;
}

export function createGateway(options: GatewayOptions, parts: GatewayParts = {}): Gateway {
  const resolved = checkGatewayOptions(options);
  const unknownPart = Object.keys(parts).find((key) => !PART_NAMES.has(key));
  if (unknownPart !== undefined) throw new TypeError(`createGateway: unknown part "${unknownPart}"; the parts are ${[...PART_NAMES].join(", ")}`);
  const checkCaller = callerCheck(resolved);
  const telemetry = parts.telemetry ?? createGatewayTelemetry({ log: resolved.log });
  const readiness = new Readiness();
  telemetry.addCollector(readinessCollector(readiness));
  // A replica that would refuse the next caller leaves the rotation until it would not.
  telemetry.addObserver(
    capacityReadiness(readiness, {
      maxRequests: resolved.maxRequests,
      maxQueue: resolved.maxQueue,
      maxSessions: resolved.legacy === "session" ? resolved.maxSessions : 0,
    }),
  );
  const childrenFactory = parts.children ?? defaultChildren;
  // Filled through the children, which are built next; it lists nothing before the first tools/call.
  const toolHeaders = new ToolHeaderCatalog({ listPage: listToolsThrough(() => children.poolFor("modern", GATEWAY_PRINCIPAL)) });
  const children = childrenFactory(resolved, { telemetry, readiness, toolsChanged: () => toolHeaders.toolsChanged() });

  let refusing = false;
  const inFlight = new InFlightRequests();
  const sessions = new SessionStore({
    maxSessions: resolved.maxSessions,
    maxSessionsPerPrincipal: resolved.maxSessionsPerPrincipal,
    sessionIdleMs: resolved.sessionIdleMs,
    maxStoredEvents: resolved.maxStoredEvents,
    counted: (count) => telemetry.sessions(count),
    ended: (_session, cause) => telemetry.note("session_ended", { cause }),
  });
  const context: FrontContext = {
    options: resolved,
    telemetry,
    admission: new Admission(resolved.maxRequests, resolved.maxQueue, ({ running, queued }) => telemetry.inFlight(running, queued)),
    listenStreams: new ListenStreams(resolved.maxListenStreams, (open) => telemetry.listenStreams(open)),
    sessions,
    poolFor: (era, principal) => children.poolFor(era, principal),
    openSessionChild: children.openSessionChild,
    inFlight,
    toolHeaders,
    hostPolicy: { allowedHosts: resolved.allowedHosts, loopbackNames: isLoopbackHost(resolved.listen.host) },
    checkCaller,
    refusing: () => refusing,
  };
  const handler = createHandler(context);

  let server: Server | undefined;
  let admin: AdminServer | undefined;
  let listening: Promise<string> | undefined;
  // Warmed now, not at listen(): the handler may be mounted in a server of the user's own.
  const childrenStarted = children.start();

  const closeFront = async (hurry: AbortSignal): Promise<void> => {
    await listening?.catch(() => {});
    sessions.endStreams();
    const front = server;
    if (front !== undefined) {
      const closed = new Promise<void>((resolve) => front.close(() => resolve()));
      front.closeIdleConnections();
      // Every answer is written by now (the drain answered what was left); a socket still open is
      // given a moment to flush, then cut.
      const cut = setTimeout(() => front.closeAllConnections(), hurry.aborted ? 0 : FRONT_CLOSE_GRACE_MS);
      cut.unref();
      hurry.addEventListener("abort", () => front.closeAllConnections(), { once: true });
      await closed;
      clearTimeout(cut);
    }
    await admin?.close();
  };

  const drain = new Drain({
    readiness,
    drainDelayMs: resolved.drainDelayMs,
    drainMs: resolved.drainMs,
    telemetry,
    hooks: {
      refuseNewRequests: () => {
        refusing = true;
      },
      whenIdle: () => inFlight.whenIdle(),
      failInFlight: (error) => inFlight.failAll(error),
      closeFront,
      closeChildren: async (hurry) => {
        await childrenStarted;
        await Promise.all([sessions.close(), children.close(hurry)]);
        telemetry.close();
      },
    },
  });

  return {
    handler,
    drain,
    readiness,
    telemetry,
    get adminUrl() {
      return admin?.url;
    },
    get sessionCount() {
      return sessions.size;
    },
    get requests() {
      return context.admission.counts;
    },
    listen() {
      listening ??= (async () => {
        // Loaded here, not at the top: a program that imports mcpwire and never serves (a client)
        // should not hold Node's HTTP client and server (about 0.6 MiB on Node 20).
        const { createServer } = await import("node:http");
        const front = createServer(handler);
        server = front;
        await new Promise<void>((resolve, reject) => {
          front.once("error", reject);
          front.listen(resolved.listen.port, resolved.listen.host, () => {
            front.off("error", reject);
            resolve();
          });
        });
        if (resolved.adminListen !== undefined) {
          admin = await startAdminServer({ listen: resolved.adminListen, readiness, metrics: () => telemetry.metricsText(), allowedHosts: resolved.allowedHosts });
        }
        const address = front.address() as AddressInfo;
        const host = address.family === "IPv6" || address.address.includes(":") ? `[${address.address}]` : address.address;
        const url = `http://${host}:${address.port}${resolved.path}`;
        telemetry.note("listening", { url, ...(admin === undefined ? {} : { adminUrl: admin.url }) });
        return url;
      })();
      return listening;
    },
    async close() {
      await drain.start();
    },
  };
}

/** The drain's result type, for the CLI. */
export type { DrainResult };
