/**
 * Target auto-detection: what `connect(target)` and the CLI accept, and which transport each
 * picks (the README's transport table).
 *
 * | Target | Transport |
 * | --- | --- |
 * | `ws://` or `wss://` URL | WebSocket |
 * | http(s) URL whose path ends in `/sse` | legacy HTTP+SSE |
 * | any other http(s) URL | Streamable HTTP (falling back to legacy HTTP+SSE on 400, 404, 405) |
 * | a URL of any other scheme (`scheme://`) | refused, not run as a command |
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
import { StdioTransport, type StdioTransportOptions } from "../transport/stdio/stdio.js";
import { isMcpTransport, type McpTransport } from "../transport/transport.js";
import { ConfigError, parseServerConfig, type McpServerConfig } from "./server-config.js";
import { splitCommandLine } from "./shell-words.js";
import { buildTransport } from "./transport-for.js";
import { checkTransportOptions, type TransportOptions } from "./transport-options.js";
import { looksLikeUrl, transportForUrl } from "./url-kind.js";
import { shownUrl } from "../util/shown-url.js";

/** An endpoint given by URL, with what a remote declaration may add (see `McpServerConfig`). */
export type UrlTarget = { url: string } & Pick<
  McpServerConfig,
  | "headers"
  | "redirect"
  | "fallback"
  | "listen"
  | "keepAlive"
  | "upgradeTimeoutMs"
  | "closeTimeoutMs"
  | "maxMessageBytes"
  | "readTimeoutMs"
  | "maxInFlight"
  | "timeoutMs"
>;

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
    return parseServerConfig({ name: url.host, transport: transportForUrl(text), url: text }, `target ${JSON.stringify(shownUrl(text))}`);
  }
  // A URL of another scheme would otherwise be run as a command named "ftp://...". Only the scheme
  // is named: the rest of a URL may hold credentials.
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(text)?.[1];
  if (scheme !== undefined) {
    throw new TypeError(
      `a target starting with ${scheme}:// is a URL of a scheme mcpwire does not speak; give an http(s):// URL (Streamable HTTP), a ws(s):// URL (WebSocket) or a command line`,
    );
  }
  const [command, ...args] = splitCommandLine(text);
  return { name: command!, transport: "stdio", command: command!, args };
}

/**
 * The transport a target stands for, given `options` (see `TransportOptions`): each must be one
 * the resolved transport takes, or this throws a TypeError naming it. `where` and `otherNames`
 * are for callers that read other keys of the same options (`connect()` and its client options).
 */
export function resolveTarget(
  target: ConnectTarget,
  options: TransportOptions = {},
  where = "resolveTarget()",
  otherNames: readonly string[] = [],
): ResolvedTarget {
  const build = (config: McpServerConfig): ResolvedTarget => ({ transport: buildTransport(config, options, where, otherNames), config });
  if (typeof target === "string") return build(configForString(target));
  if (isMcpTransport(target)) {
    const resolved = { transport: target.kind, description: `a ready-made ${target.kind} transport (${target.description})`, readyMade: true };
    checkTransportOptions(options, resolved, where, otherNames);
    return { transport: target };
  }
  if (typeof target !== "object" || target === null) {
    throw new TypeError(
      `connect(): cannot tell how to reach ${target === null ? "null" : `a ${typeof target}`}; give a URL, a command line, ` +
        "{ command, args }, { url }, a server config, an McpTransport or an SDK server object",
    );
  }
  if ("transport" in target && "name" in target) return build(parseServerConfig(target, `server "${String(target.name)}"`));
  if ("command" in target && typeof (target as { connect?: unknown }).connect !== "function") {
    const given = target as StdioTransportOptions;
    checkTransportOptions(options, { transport: "stdio", description: `the command ${JSON.stringify(String(given.command))} (stdio)` }, where, otherNames);
    return { transport: new StdioTransport(withOptions(given, options)) };
  }
  if ("url" in target) {
    const { url, ...rest } = target as UrlTarget;
    if (typeof url !== "string") throw new ConfigError(`connect(): "url" must be a string`);
    return build(parseServerConfig({ name: hostOf(url), transport: transportForUrl(url), url, ...rest }, `target ${JSON.stringify(shownUrl(url))}`));
  }
  if (typeof (target as InProcessServer).connect === "function") {
    checkTransportOptions(options, { transport: "memory", description: "an in-process server (memory)", readyMade: true }, where, otherNames);
    return { transport: new MemoryTransport(target as InProcessServer) };
  }
  throw new TypeError(
    "connect(): cannot tell how to reach this object; give { command, args }, { url }, a server config " +
      "(with name and transport), an McpTransport or an SDK server object with connect(transport)",
  );
}

/** A stdio target's own options with those given beside it on top (`env` merged per variable). */
function withOptions(target: StdioTransportOptions, options: TransportOptions): StdioTransportOptions {
  const merged: Record<string, unknown> = { ...target };
  for (const [key, value] of Object.entries(options)) {
    if (value === undefined) continue;
    merged[key] = key === "env" && target.env !== undefined ? { ...target.env, ...(value as Record<string, string | undefined>) } : value;
  }
  return merged as unknown as StdioTransportOptions;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
