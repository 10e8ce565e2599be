/**
 * The names mcpwire's declarations own: the built-in transports, the other names files give
 * them, the keys every declaration has, and the keys hosts keep in a file entry for themselves.
 * A transport registered with `registerTransport` may take none of them, so that a name or a key
 * always means one thing.
 */
import { LIMIT_NAMES } from "../transport/limits.js";

export const TRANSPORT_NAMES = ["stdio", "http", "sse", "websocket"] as const;
export type TransportName = (typeof TRANSPORT_NAMES)[number];

/** What a file's `type` may say, and the built-in transport each stands for. */
export const TRANSPORT_TYPE_ALIASES: Readonly<Record<string, TransportName>> = {
  stdio: "stdio",
  http: "http",
  "streamable-http": "http",
  streamableHttp: "http",
  sse: "sse",
  ws: "websocket",
  websocket: "websocket",
};

/** The keys of every declaration, whatever its transport: mcpwire reads and checks them itself. */
export const COMMON_KEYS: readonly string[] = ["name", "transport", ...LIMIT_NAMES];

/** Keys that hosts keep in a file entry for themselves: accepted there, and not passed on. */
export const HOST_KEYS: ReadonlySet<string> = new Set(["disabled", "autoApprove", "alwaysAllow", "description"]);

export function isBuiltInTransport(name: unknown): name is TransportName {
  return (TRANSPORT_NAMES as readonly unknown[]).includes(name);
}
