/**
 * Target auto-detection: what `connect(target)` and the CLI accept, and which transport each
 * picks (the README's transport table).
 *
 * | Target | Transport |
 * | --- | --- |
 * | `ws://` or `wss://` URL | WebSocket |
 * | http(s) URL whose path ends in `/sse` | legacy HTTP+SSE |
 * | any other http(s) URL | Streamable HTTP (falling back to legacy HTTP+SSE on 400, 404, 405) |
 * | any other string | a command line, split like a POSIX shell splits words, run without one |
 * | `{ command, args, ... }` | stdio |
 * | `{ url, headers, ... }` | by the URL, as above |
 * | an `McpServerConfig` (has `name` and `transport`) | what it declares |
 * | an `McpTransport` | itself |
 * | an SDK server object (has `connect(transport)`) | in memory |
 *
 * A URL is used verbatim: a bare host is not given a path.
 */
import { MemoryTransport, type InProcessServer } from "../transport/memory.js";
import { StdioTransport, type StdioTransportOptions } from "../transport/stdio.js";
import { isMcpTransport, type McpTransport } from "../transport/transport.js";
import { ConfigError, parseServerConfig, type McpServerConfig } from "./server-config.js";
import { splitCommandLine } from "./shell-words.js";
import { transportFor, type TransportExtras } from "./transport-for.js";
import { looksLikeUrl, transportForUrl } from "./url-kind.js";

/** An endpoint given by URL, with what a remote declaration may add. */
export interface UrlTarget {
  url: string;
  headers?: Record<string, string>;
  redirect?: McpServerConfig["redirect"];
  fallback?: boolean;
}

export type ConnectTarget = string | McpServerConfig | UrlTarget | StdioTransportOptions | McpTransport | InProcessServer;

export interface ResolvedTarget {
  transport: McpTransport;
  /** The declaration the target amounts to, when it is one (its ceilings apply). */
  config?: McpServerConfig;
}

/** The declaration a string stands for: a URL, or a command line. */
export function configForString(target: string): McpServerConfig {
  const text = target.trim();
  if (looksLikeUrl(text)) {
    const url = new URL(text);
    return parseServerConfig({ name: url.host, transport: transportForUrl(text), url: text }, `target ${JSON.stringify(text)}`);
  }
  const [command, ...args] = splitCommandLine(text);
  return { name: command!, transport: "stdio", command: command!, args };
}

export function resolveTarget(target: ConnectTarget, extras: TransportExtras = {}): ResolvedTarget {
  if (typeof target === "string") {
    const config = configForString(target);
    return { transport: transportFor(config, extras), config };
  }
  if (isMcpTransport(target)) return { transport: target };
  if (typeof target !== "object" || target === null) {
    throw new TypeError(
      `connect(): cannot tell how to reach ${target === null ? "null" : `a ${typeof target}`}; give a URL, a command line, ` +
        "{ command, args }, { url }, a server config, an McpTransport or an SDK server object",
    );
  }
  if ("transport" in target && "name" in target) {
    const config = parseServerConfig(target, `server "${String(target.name)}"`);
    return { transport: transportFor(config, extras), config };
  }
  if ("command" in target && typeof (target as { connect?: unknown }).connect !== "function") {
    const options = target as StdioTransportOptions;
    return { transport: new StdioTransport(extras.stderr && !options.stderr ? { ...options, stderr: extras.stderr } : options) };
  }
  if ("url" in target) {
    const { url, ...rest } = target as UrlTarget;
    if (typeof url !== "string") throw new ConfigError(`connect(): "url" must be a string`);
    const config = parseServerConfig({ name: hostOf(url), transport: transportForUrl(url), url, ...rest }, `target ${JSON.stringify(url)}`);
    return { transport: transportFor(config, extras), config };
  }
  if (typeof (target as InProcessServer).connect === "function") return { transport: new MemoryTransport(target as InProcessServer) };
  throw new TypeError(
    "connect(): cannot tell how to reach this object; give { command, args }, { url }, a server config " +
      "(with name and transport), an McpTransport or an SDK server object with connect(transport)",
  );
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
