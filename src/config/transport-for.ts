/**
 * `transportFor(config)`: the transport a declaration asks for. This is the one place where a
 * configuration becomes a wire, so moving a server from a laptop (stdio) to a cluster (HTTP) is a
 * change of configuration, never of code.
 */
import type { FetchLike } from "../transport/common/http-client.js";
import { HttpTransport } from "../transport/http-fallback.js";
import { SseTransport } from "../transport/sse.js";
import { StdioTransport, type StderrDestination } from "../transport/stdio.js";
import { StreamableHttpTransport, type HeadersOption } from "../transport/streamable-http.js";
import type { McpTransport } from "../transport/transport.js";
import { WebSocketTransport } from "../transport/websocket.js";
import type { McpServerConfig } from "./server-config.js";

/** What a declaration cannot hold because it is code, not data. */
export interface TransportExtras {
  /** stdio: where the child's stderr goes besides the kept tail (a stream or a callback). */
  stderr?: StderrDestination;
  /** http, sse: the `fetch` to use instead of the default keep-alive `node:http` client. */
  fetch?: FetchLike;
  /** http, sse, websocket: headers computed per request (rotating tokens), merged over the declared ones. */
  headers?: HeadersOption;
}

export function transportFor(config: McpServerConfig, extras: TransportExtras = {}): McpTransport {
  switch (config.transport) {
    case "stdio":
      return new StdioTransport({
        command: config.command!,
        args: config.args,
        env: config.env,
        envAllow: config.envAllow,
        cwd: config.cwd,
        stderr: extras.stderr,
      });
    case "http": {
      // Streamable HTTP, falling back to legacy HTTP+SSE on 400/404/405, unless told not to.
      const options = { headers: mergeHeaders(config.headers, extras.headers), fetch: extras.fetch, redirect: config.redirect };
      return config.fallback === false ? new StreamableHttpTransport(config.url!, options) : new HttpTransport(config.url!, options);
    }
    case "websocket":
      return new WebSocketTransport(config.url!, { headers: mergeHeaders(config.headers, extras.headers) });
    case "sse":
      return new SseTransport(config.url!, {
        headers: mergeHeaders(config.headers, extras.headers),
        fetch: extras.fetch,
        redirect: config.redirect,
      });
  }
}

/** Declared headers, with those computed by code on top (per request when code gives a function). */
export function mergeHeaders(declared: Record<string, string> | undefined, computed: HeadersOption | undefined): HeadersOption | undefined {
  if (computed === undefined) return declared;
  if (typeof computed !== "function") return { ...declared, ...computed };
  return async () => ({ ...declared, ...(await computed()) });
}
