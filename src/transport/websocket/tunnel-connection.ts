/**
 * The `createConnection` handed to `ws` when a WebSocket goes through a proxy: it opens the
 * CONNECT tunnel (net/tunnel.ts) and, for wss:, the TLS session to the server inside it, with the
 * server's TLS options. `node:http` calls it with a callback and waits for it, so the upgrade
 * request is written only once the tunnel is up; a failure reaches `ws` as the request's error,
 * already an UNAVAILABLE McpTransportError naming the proxy or the TLS cause.
 */
import net from "node:net";
import type { Duplex } from "node:stream";
import { CONNECT_TIMEOUT_MS } from "../http/undici-http-client.js";
import { connectFailure } from "../net/network-failures.js";
import type { ProxyRoute } from "../net/proxy-rules.js";
import type { TlsMaterial } from "../net/tls-options.js";
import { openTunnel } from "../net/tunnel.js";

export interface TunnelConnectionOptions {
  route: ProxyRoute;
  /** The ws: or wss: URL of the server. */
  target: URL;
  tls: TlsMaterial | undefined;
  /** The opening's stop (the upgrade deadline or the caller's signal): it ends a tunnel under way. */
  signal: AbortSignal;
}

type Callback = (error: Error | null, socket?: Duplex) => void;

export function tunnelConnection(options: TunnelConnectionOptions): (requestOptions: unknown, callback: Callback) => undefined {
  return (_requestOptions, callback) => {
    connectThrough(options).then(
      (socket) => callback(null, socket),
      (error: unknown) => callback(error as Error),
    );
    // Nothing returned: node:http waits for the callback.
    return undefined;
  };
}

/** The tunnel, and TLS to the server inside it for wss:. */
async function connectThrough({ route, target, tls: material, signal }: TunnelConnectionOptions): Promise<Duplex> {
  const secure = target.protocol === "wss:";
  const host = target.hostname.replace(/^\[|\]$/g, "");
  const port = Number(target.port) || (secure ? 443 : 80);
  const socket = await openTunnel({ proxy: route, host, port, timeoutMs: CONNECT_TIMEOUT_MS, signal, tls: material });
  if (!secure) return socket;
  const attempt = { server: `the WebSocket server at ${target.protocol}//${target.host}`, proxy: route, secure, clientCertificate: material?.cert !== undefined };
  // Loaded for a first wss:// tunnel, not when mcpwire is imported.
  const tls = await import("node:tls");
  return new Promise<Duplex>((resolve, reject) => {
    const secured = tls.connect({
      ...material,
      socket,
      host,
      // SNI takes a host name, never an IP literal.
      ...(net.isIP(host) === 0 ? { servername: host } : {}),
      ALPNProtocols: ["http/1.1"],
    });
    const onError = (error: Error) => {
      secured.destroy();
      reject(connectFailure(error, attempt));
    };
    secured.once("error", onError);
    secured.once("secureConnect", () => {
      secured.off("error", onError);
      resolve(secured);
    });
  });
}
