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
import type { Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { GatewayOptions, Principal } from "./gateway-options.js";
import { checkGatewayOptions, type ResolvedGatewayOptions } from "./check-options.js";
import type { GatewayCore } from "./gateway-core.js";
import type { AdmissionCounts } from "./http/admission.js";
import { callerCheck } from "./http/caller-auth.js";
import type { GatewayHandler } from "./http/handler.js";
import { startAdminServer, type AdminServer } from "./ops/admin-server.js";
import { Drain, type DrainResult } from "./ops/drain.js";
import { createGatewayTelemetry, type GatewayTelemetryRecorder } from "./ops/gateway-telemetry.js";
import { capacityReadiness } from "./ops/capacity.js";
import { readinessCollector } from "./ops/readiness-metrics.js";
import { Readiness } from "./ops/readiness.js";
import type { GatewayTelemetry } from "./ops/telemetry.js";
import type { Relay } from "./relay.js";
import type { OpenSessionChild } from "./sessions/session-child.js";

/** How long answered connections get to flush after the front stops listening, before they are cut. */
export const FRONT_CLOSE_GRACE_MS = 1_000;

/**
 * The children of one gateway, as the front uses them: the pool's relay for a caller, a session's
 * own child, warming and stopping. default-children.ts builds the default from gateway/children/.
 */
export interface GatewayChildren {
  /**
   * The pool's relay for one caller's requests, of the modern era or (stateless mode) the legacy
   * one. Without a session a caller is `principal` on the HTTP connection the message came on
   * (`connection`, the request's socket): a caller's `notifications/cancelled` must reach only
   * requests it sent, and callers' ids collide. Absent: the gateway's own requests.
   */
  poolFor(era: "modern" | "legacy", principal: Principal, connection?: object): Relay;
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
  /**
   * Called when the parts that serve are built (gateway-core.ts, loaded as the gateway is
   * created, a turn later). If it throws, `listen()` rejects with what it threw and every request
   * is answered 500 in our words.
   * @default the pool and session relays of gateway/children/
   */
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
  let refusing = false;
  // The parts that serve requests, loaded on the way (gateway-core.ts): until they are here,
  // a request waits for them, and there is nothing in flight to drain.
  let core: GatewayCore | undefined;
  const coreReady = import("./gateway-core.js").then(({ buildGatewayCore }) => {
    core = buildGatewayCore({ options: resolved, telemetry, readiness, checkCaller, children: parts.children, refusing: () => refusing });
    return core;
  });
  // Its failure (children of the caller's that could not be built) is listen()'s, and each request's.
  coreReady.catch(() => telemetry.note("handler_fault"));
  const handler: GatewayHandler = (request, response) => {
    if (core !== undefined) return core.handler(request, response);
    coreReady.then(
      (loaded) => loaded.handler(request, response),
      () => answerFault(response),
    );
  };

  let server: Server | undefined;
  let admin: AdminServer | undefined;
  let listening: Promise<string> | undefined;

  const closeFront = async (hurry: AbortSignal): Promise<void> => {
    await listening?.catch(() => {});
    core?.sessions.endStreams();
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
      whenIdle: () => coreReady.then((loaded) => loaded.inFlight.whenIdle(), () => {}),
      failInFlight: (error) => core?.inFlight.failAll(error) ?? 0,
      closeFront,
      closeChildren: async (hurry) => {
        const loaded = await coreReady.catch(() => undefined);
        if (loaded !== undefined) {
          // Closed first, then their start waited for: the start settles at the close. Waiting for
          // it first held the drain for good when the server never answered its probe (the pool
          // kept respawning it, and nothing but the close ends its start).
          await Promise.all([loaded.sessions.close(), loaded.children.close(hurry), loaded.childrenStarted]);
        }
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
      return core?.sessions.size ?? 0;
    },
    get requests() {
      return core?.admission.counts ?? { running: 0, queued: 0 };
    },
    listen() {
      listening ??= (async () => {
        const loaded = await coreReady;
        // Loaded here, not at the top: a program that imports mcpwire and never serves (a client)
        // should not hold Node's HTTP client and server (about 0.6 MiB on Node 20).
        const { createServer } = await import("node:http");
        const front = createServer(loaded.handler);
        // Node answers `Expect: 100-continue` with 100 by itself, inviting the body before the
        // handler sees the request. A body declared past maxBodyBytes is refused (413) without it,
        // so the caller never sends it (RFC 9110, 10.1.1: a server that answers with a final
        // status may omit the 100); any other request gets its 100 as before.
        front.on("checkContinue", (request, response) => {
          if (!loaded.declaresTooLarge(request)) response.writeContinue();
          loaded.handler(request, response);
        });
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

/** A request that came before the serving parts, which could not be built: an answer in our words only. */
function answerFault(response: ServerResponse): void {
  if (response.headersSent) return;
  response.writeHead(500, { "content-type": "application/json" });
  response.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32603, message: "the gateway failed to handle this request" } }));
}

/** The drain's result type, for the CLI. */
export type { DrainResult };
