/**
 * An HTTP CONNECT tunnel through a forward proxy: one TCP (or TLS, for an https: proxy)
 * connection to the proxy, `CONNECT host:port`, and on a 2xx answer the socket, now a byte pipe
 * to the target. TLS to the target, if any, is the caller's next step over that socket.
 *
 * Used by the HTTP dispatcher (https: targets) and by the WebSocket transport (ws: and wss:),
 * so a proxy is spoken to the same way, with the same failures, on every wire.
 */
import type http from "node:http";
import type { Duplex } from "node:stream";
import { abortReason } from "../../util/abort.js";
import { proxyRefused, proxyTimedOut, proxyUnreachable } from "./network-failures.js";
import type { ProxyRoute } from "./proxy-rules.js";
import type { TlsMaterial } from "./tls-options.js";

export interface TunnelRequest {
  proxy: ProxyRoute;
  /** The target's host name or IP literal (an IPv6 one with or without brackets). */
  host: string;
  port: number;
  /** How long the proxy may take to connect and to answer CONNECT, in ms. */
  timeoutMs: number;
  signal?: AbortSignal;
  /** CAs for an https: proxy's certificate (the same trust as the server's). */
  tls?: TlsMaterial;
}

/**
 * Opens the tunnel. Rejects with UNAVAILABLE (kind `proxy_unavailable`) naming the proxy when it
 * cannot be reached, refuses (any status but 2xx, in `httpStatus`) or takes too long; with the
 * signal's reason when it aborts. Nothing is left open on a failure.
 */
export async function openTunnel(request: TunnelRequest): Promise<Duplex> {
  const { proxy, signal, timeoutMs } = request;
  if (signal?.aborted) throw abortReason(signal);
  // Loaded when a first tunnel is opened, not when mcpwire is imported.
  const client = proxy.url.protocol === "https:" ? await import("node:https") : await import("node:http");
  if (signal?.aborted) throw abortReason(signal);
  const host = request.host.replace(/^\[|\]$/g, "");
  const authority = host.includes(":") ? `[${host}]:${request.port}` : `${host}:${request.port}`;
  const secureProxy = proxy.url.protocol === "https:";
  return new Promise<Duplex>((resolve, reject) => {
    let settled = false;
    const headers: Record<string, string> = { host: authority };
    if (proxy.authorization !== undefined) headers["proxy-authorization"] = proxy.authorization;
    const req = client.request({
      method: "CONNECT",
      host: proxy.url.hostname.replace(/^\[|\]$/g, ""),
      port: proxy.url.port || (secureProxy ? 443 : 80),
      path: authority,
      headers,
      // A connection of its own: a tunnel is never shared, nor kept by an agent.
      agent: false,
      ...(secureProxy && request.tls?.ca !== undefined ? { ca: request.tls.ca } : {}),
    });
    const finish = (error: unknown, socket?: Duplex) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      if (error === undefined) resolve(socket!);
      else {
        req.destroy();
        reject(error);
      }
    };
    const onAbort = () => finish(abortReason(signal!));
    signal?.addEventListener("abort", onAbort, { once: true });
    const timer = setTimeout(() => finish(proxyTimedOut(timeoutMs, proxy, authority)), timeoutMs);
    req.once("connect", (response: http.IncomingMessage, socket: Duplex, head: Buffer) => {
      const status = response.statusCode ?? 0;
      if (settled || status < 200 || status >= 300) {
        socket.destroy();
        finish(proxyRefused(status, proxy, authority));
        return;
      }
      // Bytes the target sent right after the proxy's answer belong to the tunnel.
      if (head.length > 0) socket.unshift(head);
      finish(undefined, socket);
    });
    // A proxy that answers CONNECT with a body of its own, as a plain response.
    req.once("response", (response: http.IncomingMessage) => {
      response.resume();
      finish(proxyRefused(response.statusCode ?? 0, proxy, authority));
    });
    req.on("error", (error) => finish(proxyUnreachable(error, proxy)));
    req.end();
  });
}
