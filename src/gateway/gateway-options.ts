/**
 * What `createGateway(options)` takes: the public contract of the stdio-to-HTTP gateway. The CLI
 * (`mcpwire gateway <target> --listen ...`, and the `MCPWIRE_GATEWAY_*` variables) builds the
 * same object, so every option here has a flag and a variable (README, "The gateway").
 *
 * Checked once, where it is given (`checkGatewayOptions`): an unknown key is refused with a
 * "did you mean", a bad value names the option and what it takes.
 */
import type { IncomingMessage } from "node:http";
import type { Limits } from "../transport/limits.js";
import type { ChildStderrMode } from "./children/child-stderr.js";

/** How legacy callers (revisions 2024-11-05 to 2025-11-25) are served. */
export type LegacyMode =
  /** A child per `Mcp-Session-Id`, spawned at `initialize`: the full protocol, server-to-client requests included. */
  | "session"
  /** The shared pool, like 2026-07-28 callers; requests a child sends to the client are refused with an error. */
  | "stateless";

/** Who a request comes from, as `authorize` says. */
export interface Principal {
  /** A stable name for the caller: counted in metrics, written in logs, the key of per-principal caps. */
  principal: string;
  /**
   * Variables set for the children spawned for this principal (legacy session mode), on top of
   * the allowed ones: a per-user credential the server reads from its environment. Never logged.
   */
  env?: Readonly<Record<string, string>>;
}

/** The stdio server the gateway runs: a command line (split without a shell) or an argv. */
export type GatewayTarget =
  | string
  | {
      command: string;
      args?: readonly string[];
      /** Variables set for every child. */
      env?: Readonly<Record<string, string>>;
      /** Variables of the gateway's own environment the children inherit, beside the default list. */
      envAllow?: readonly string[];
      cwd?: string;
    };

export interface GatewayOptions {
  /** The stdio server to run as children. */
  target: GatewayTarget;
  /** Where `listen()` serves MCP: `host:port`. @default "127.0.0.1:8080" */
  listen?: string;
  /** The path of the MCP endpoint. @default "/mcp" */
  path?: string;
  /** Children kept warm in the pool (2026-07-28 callers, and legacy ones in stateless mode). @default 1 */
  poolMin?: number;
  /** The most children in the pool. @default 4 */
  poolMax?: number;
  /** A pool child is replaced after this many requests. @default unlimited */
  recycleAfter?: number;
  /**
   * A pool child above `poolMin` with no request in flight for this long is closed, in ms, so the
   * pool shrinks back after a burst; 0 never shrinks it. @default 60_000
   */
  poolIdleMs?: number;
  /** @default "session" */
  legacy?: LegacyMode;
  /**
   * `Host` header values accepted (`host` or `host:port`). Loopback names are accepted without it
   * when listening on loopback; a non-loopback `listen` without it refuses to start (DNS rebinding).
   */
  allowedHosts?: readonly string[];
  /** `Origin` values accepted (exact `scheme://host[:port]`); any other Origin gets 403. CORS answers only these. */
  allowedOrigins?: readonly string[];
  /** A file holding the bearer token callers must present (compared in constant time). */
  tokenFile?: string;
  /** Decides who a request is from; `undefined` means 401. Exclusive with `tokenFile`. */
  authorize?: (request: IncomingMessage) => Principal | undefined | Promise<Principal | undefined>;
  /** Where the admin endpoints (`/healthz`, `/readyz`, `/metrics`) are served, `host:port`. @default none */
  adminListen?: string;
  /** ms after SIGTERM (or `close()`) during which requests are still served while endpoints update. @default 5000 */
  drainDelayMs?: number;
  /** ms in-flight requests get after the drain delay, before they fail. @default 30_000 */
  drainMs?: number;
  /** The largest request body, in bytes; past it, 413 before parsing. @default 4 MiB */
  maxBodyBytes?: number;
  /** Requests in flight through this replica; past it they queue. @default 256 */
  maxRequests?: number;
  /** Requests waiting for a slot; past it, 503 with `Retry-After`. @default 256 */
  maxQueue?: number;
  /** Legacy sessions on this replica. @default 100 */
  maxSessions?: number;
  /** Legacy sessions of one principal. @default 10 */
  maxSessionsPerPrincipal?: number;
  /**
   * `subscriptions/listen` streams (2026-07-28) open at once through this replica; past it, 503
   * with `Retry-After`. They hold no request slot and have no deadline, so they have this cap of
   * their own. @default 256
   */
  maxListenStreams?: number;
  /** A request's time through the gateway, in ms; past it the child gets `notifications/cancelled`. @default 60_000 */
  requestTimeoutMs?: number;
  /** A legacy session without a request for this long is ended, its child stopped. @default 600_000 */
  sessionIdleMs?: number;
  /**
   * Events kept per session for `Last-Event-ID` resumption: this many for its GET stream, and as
   * many again for its requests' streams together. @default 256
   */
  maxStoredEvents?: number;
  /** The four ceilings toward each child (transport/limits.ts); `timeoutMs` is `requestTimeoutMs`. */
  childLimits?: Partial<Omit<Limits, "timeoutMs">>;
  /**
   * The children's stderr: `"log"` makes each line a `child_stderr` JSON log line, as the server
   * wrote it (cut at 4096 characters, at most 200 lines at once and 50 a second per child, the
   * rest counted); `"drop"` logs none of it, for a server that prints secrets there. Either way
   * it is drained, and its tail kept for failures. @default "log"
   */
  childStderr?: ChildStderrMode;
  /** Where the JSON log lines go. @default process.stderr */
  log?: (line: string) => void;
}

export const GATEWAY_DEFAULTS = Object.freeze({
  listen: "127.0.0.1:8080",
  path: "/mcp",
  poolMin: 1,
  poolMax: 4,
  recycleAfter: Number.POSITIVE_INFINITY,
  poolIdleMs: 60_000,
  legacy: "session" as LegacyMode,
  drainDelayMs: 5_000,
  drainMs: 30_000,
  maxBodyBytes: 4 * 1024 * 1024,
  maxRequests: 256,
  maxQueue: 256,
  maxSessions: 100,
  maxSessionsPerPrincipal: 10,
  maxListenStreams: 256,
  requestTimeoutMs: 60_000,
  sessionIdleMs: 600_000,
  maxStoredEvents: 256,
  childStderr: "log" as ChildStderrMode,
});
