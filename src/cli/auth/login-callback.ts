/**
 * The loopback listener a browser login comes back to (RFC 8252 §7.3): `http://127.0.0.1:<port>/callback`,
 * on an ephemeral port, or on the port of a stored registration so that its redirect URI still
 * matches. It takes one callback, answers the browser with a short page, and closes; requests to
 * any other path are answered 404 and do not count. No callback within `timeoutMs` is TIMEOUT.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { McpTransportError } from "../../errors.js";

export const CALLBACK_PATH = "/callback";

/** How long a login may take in the browser. */
export const LOGIN_TIMEOUT_MS = 5 * 60_000;

const DONE_PAGE = `<!doctype html><meta charset="utf-8"><title>mcpwire</title>
<p>The login is done; you can close this window and go back to the terminal.</p>\n`;

export class LoginCallback {
  private callbackUrl: Promise<string> | undefined;
  private resolveCallback: ((url: string) => void) | undefined;

  private constructor(
    private readonly server: Server,
    readonly redirectUri: string,
  ) {
    this.callbackUrl = new Promise<string>((resolve) => (this.resolveCallback = resolve));
  }

  /** Listens on 127.0.0.1; on `port` when given and free, else on an ephemeral one. */
  static async listen(port?: number): Promise<LoginCallback> {
    let server: Server;
    try {
      server = await listenOn(port ?? 0);
    } catch (error) {
      if (port === undefined || (error as NodeJS.ErrnoException).code !== "EADDRINUSE") throw error;
      server = await listenOn(0);
    }
    const { port: bound } = server.address() as AddressInfo;
    const callback = new LoginCallback(server, `http://127.0.0.1:${bound}${CALLBACK_PATH}`);
    server.on("request", (request, response) => {
      const url = new URL(request.url ?? "/", callback.redirectUri);
      if (request.method !== "GET" || url.pathname !== CALLBACK_PATH || callback.resolveCallback === undefined) {
        response.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
        return;
      }
      response.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }).end(DONE_PAGE);
      const resolve = callback.resolveCallback;
      callback.resolveCallback = undefined;
      resolve(url.href);
      void callback.close();
    });
    return callback;
  }

  /** The callback URL (with its query), once the browser came back. */
  wait(signal: AbortSignal, timeoutMs = LOGIN_TIMEOUT_MS): Promise<string> {
    const arrived = this.callbackUrl!;
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        cleanUp();
        reject(new McpTransportError("TIMEOUT", `no login came back from the browser within ${Math.round(timeoutMs / 60_000)} minutes`, {
          authStep: "authorization",
          timeoutMs,
        }));
      }, timeoutMs);
      const onAbort = () => {
        cleanUp();
        reject(signal.reason);
      };
      const cleanUp = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        void this.close();
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener("abort", onAbort, { once: true });
      void arrived.then((url) => {
        cleanUp();
        resolve(url);
      });
    });
  }

  close(): Promise<void> {
    this.resolveCallback = undefined;
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}

function listenOn(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve(server);
    });
  });
}
