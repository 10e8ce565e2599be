/**
 * The parts of undici the HTTP client uses, loaded on the first HTTP request.
 *
 * `import("undici")` loads all of undici (fetch, WebSocket, caches, mocks, EventSource): on Node
 * 20 here that is about 90 ms and 19 MiB of RSS, for a client that uses one function of it. The
 * modules below (the agent, its connector, and what they load) are about 28 ms and 10 MiB. They are undici's own files, loaded by path (the package has no export map, and
 * these paths are how its index builds the same objects), so the dependency is pinned to one
 * minor version and test/http/undici-parts.test.ts checks their shape: an upgrade that moves
 * them fails there, not in a user's first request.
 *
 * A proxy needs no more of them: transport/net/ opens CONNECT tunnels itself (net/tunnel.ts) and
 * sends absolute-form requests through an Agent, rather than use undici's ProxyAgent.
 */
import { createRequire } from "node:module";
import type { Agent, Dispatcher, buildConnector } from "undici";

export interface UndiciParts {
  Agent: typeof Agent;
  buildConnector: typeof buildConnector;
  /** The base class of dispatchers, for the proxy and TLS dispatcher (transport/net/dispatcher.ts). */
  Dispatcher: typeof Dispatcher;
}

let parts: UndiciParts | undefined;

/** The parts, loaded once per process (synchronously: they are CommonJS files on disk). */
export function undiciParts(): UndiciParts {
  if (parts) return parts;
  const require = createRequire(import.meta.url);
  parts = {
    Agent: require("undici/lib/dispatcher/agent.js") as typeof Agent,
    buildConnector: require("undici/lib/core/connect.js") as typeof buildConnector,
    Dispatcher: require("undici/lib/dispatcher/dispatcher.js") as typeof Dispatcher,
  };
  return parts;
}
