/**
 * The admin endpoints, on their own `node:http` server at `adminListen` (so probes and scrapes
 * never queue behind MCP traffic, and the MCP port need not be open to them):
 *
 * - `GET /healthz`: 200 while the process is alive; answering at all shows its event loop turns.
 * - `GET /readyz`: 200 when the readiness says ready; else 503 with one plain-text line of why.
 * - `GET /metrics`: the Prometheus text format 0.0.4.
 *
 * `HEAD` is answered as `GET` without a body. Other paths get 404, other methods 405 with
 * `Allow`. A Host that is not an IP literal, `localhost` or an allowed host gets 403
 * (admin-host.ts). `close()` stops listening and ends every connection, idle or not.
 */
import type http from "node:http";
import type { AddressInfo } from "node:net";
import { McpTransportError } from "../../errors.js";
import { adminHostAllowed } from "./admin-host.js";
import { parseListenAddress, type ListenAddress } from "./listen-address.js";
import { refuseUnknownOptions } from "./option-check.js";
import { PROMETHEUS_CONTENT_TYPE } from "./prometheus-text.js";
import type { Readiness } from "./readiness.js";

/** A probe or scrape that has not sent its headers by then is dropped, so idle sockets cannot pile up. */
export const ADMIN_HEADERS_TIMEOUT_MS = 10_000;
/** The whole of an admin request (they carry no body worth waiting for). */
export const ADMIN_REQUEST_TIMEOUT_MS = 10_000;

export interface AdminServerOptions {
  /** `host:port`; port 0 takes a free one (read it from `address`). Loopback unless given otherwise. */
  listen: string | ListenAddress;
  /** What `/readyz` answers. */
  readiness: Readiness;
  /** The text `/metrics` answers, in the Prometheus text format 0.0.4. */
  metrics: () => string;
  /** Host names accepted beside IP literals and `localhost` (the front's `allowedHosts`). */
  allowedHosts?: readonly string[];
}

const OPTION_NAMES = new Set(["listen", "readiness", "metrics", "allowedHosts"]);

export interface AdminServer {
  /** Where it listens, the port resolved. */
  readonly address: ListenAddress;
  /** `http://host:port`, for logs and tests. */
  readonly url: string;
  /** Stops listening and closes every connection. Idempotent. */
  close(): Promise<void>;
}

const ROUTES = new Set(["/healthz", "/readyz", "/metrics"]);

export async function startAdminServer(options: AdminServerOptions): Promise<AdminServer> {
  refuseUnknownOptions(options, OPTION_NAMES, "startAdminServer");
  const where = typeof options.listen === "string" ? parseListenAddress(options.listen, "adminListen") : options.listen;
  const allowedHosts = options.allowedHosts ?? [];

  // Loaded here, not at the top: importing mcpwire should not load Node's HTTP server (gateway.ts).
  const { createServer } = await import("node:http");
  const server = createServer((request, response) => answer(request, response, options, allowedHosts));
  server.headersTimeout = ADMIN_HEADERS_TIMEOUT_MS;
  server.requestTimeout = ADMIN_REQUEST_TIMEOUT_MS;

  await new Promise<void>((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => {
      reject(
        new McpTransportError("UNAVAILABLE", `admin server: cannot listen on ${where.host}:${where.port}${error.code ? ` (${error.code})` : ""}`, {
          cause: error,
        }),
      );
    };
    server.once("error", failed);
    server.listen(where.port, where.host, () => {
      server.off("error", failed);
      resolve();
    });
  });

  const port = (server.address() as AddressInfo).port;
  const address = { host: where.host, port };
  let closing: Promise<void> | undefined;
  return {
    address,
    url: `http://${where.host.includes(":") ? `[${where.host}]` : where.host}:${port}`,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Every connection, idle, busy or still sending its headers (the test checks each).
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

function answer(request: http.IncomingMessage, response: http.ServerResponse, options: AdminServerOptions, allowedHosts: readonly string[]): void {
  // Whatever body came is not read; the connection closes after the answer so it cannot linger.
  if (request.headers["content-length"] !== undefined || request.headers["transfer-encoding"] !== undefined) {
    response.shouldKeepAlive = false;
    request.resume();
  }
  if (!adminHostAllowed(request.headers.host, allowedHosts)) return plain(response, 403, "host not allowed\n");
  const path = (request.url ?? "/").split("?", 1)[0]!;
  if (!ROUTES.has(path)) return plain(response, 404, "not found\n");
  if (request.method !== "GET" && request.method !== "HEAD") {
    response.setHeader("Allow", "GET, HEAD");
    return plain(response, 405, "method not allowed\n");
  }
  if (path === "/healthz") return plain(response, 200, "ok\n");
  if (path === "/readyz") {
    const state = options.readiness.state();
    return state.ready ? plain(response, 200, "ready\n") : plain(response, 503, `not ready: ${state.reason}\n`);
  }
  let text: string;
  try {
    text = options.metrics();
  } catch {
    return plain(response, 500, "metrics unavailable\n");
  }
  send(response, 200, PROMETHEUS_CONTENT_TYPE, text);
}

function plain(response: http.ServerResponse, status: number, text: string): void {
  send(response, status, "text/plain; charset=utf-8", text);
}

function send(response: http.ServerResponse, status: number, contentType: string, text: string): void {
  response.writeHead(status, {
    "Content-Type": contentType,
    "Content-Length": Buffer.byteLength(text),
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
  });
  response.end(text);
}
