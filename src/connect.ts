/**
 * `connect(target)`: the one call most code needs. It resolves the target to a transport, opens
 * it and runs the handshake, and returns a ready `McpClient`.
 *
 * Targets understood so far: an `McpTransport`; a child process described by
 * `{ command, args, env, envAllow, cwd, stderr, ... }` (the options of `StdioTransport`), spawned
 * without a shell; and an in-process server object of the official SDK (anything with
 * `connect(transport)`), reached in memory with no subprocess and no port.
 */
import { McpClient, type ClientOptions } from "./client/client.js";
import { MemoryTransport, type InProcessServer } from "./transport/memory.js";
import { StdioTransport, type StdioTransportOptions } from "./transport/stdio.js";
import { isMcpTransport, type McpTransport } from "./transport/transport.js";

export type ConnectTarget = McpTransport | InProcessServer | StdioTransportOptions;

export function transportForTarget(target: ConnectTarget): McpTransport {
  if (isMcpTransport(target)) return target;
  if (isStdioTarget(target)) return new StdioTransport(target);
  if (typeof target === "object" && target !== null && typeof (target as InProcessServer).connect === "function") {
    return new MemoryTransport(target);
  }
  throw new TypeError(
    `connect(): cannot tell how to reach ${describeTarget(target)}; ` +
      "give an McpTransport, { command, args } for a child process, or a server object with connect(transport)",
  );
}

export async function connect(target: ConnectTarget, options: ClientOptions = {}): Promise<McpClient> {
  return McpClient.connect(transportForTarget(target), options);
}

/** `{ command: "..." }` and no `connect` method: the description of a child process. */
function isStdioTarget(target: unknown): target is StdioTransportOptions {
  return (
    typeof target === "object" &&
    target !== null &&
    "command" in target &&
    typeof (target as { connect?: unknown }).connect !== "function"
  );
}

function describeTarget(target: unknown): string {
  if (target === null) return "null";
  if (typeof target === "object") return "this object";
  return `a ${typeof target}`;
}
