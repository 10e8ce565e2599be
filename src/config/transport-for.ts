/**
 * `transportFor(config)`: the transport a declaration asks for. This is the one place where a
 * configuration becomes a wire, so moving a server from a laptop (stdio) to a cluster (HTTP) is a
 * change of configuration, never of code.
 *
 * Options given beside the declaration (see `TransportOptions`) are the most specific word: each
 * replaces the declared value, except `headers` and `env`, which are merged over the declared
 * ones per name. A key the declared transport does not take is refused.
 */
import type { HeadersOption } from "../transport/http/http-options.js";
import { HttpTransport } from "../transport/http/http-fallback.js";
import { SseTransport } from "../transport/http/sse.js";
import { StdioTransport } from "../transport/stdio/stdio.js";
import { StreamableHttpTransport } from "../transport/http/streamable-http.js";
import { isMcpTransport, type McpTransport } from "../transport/transport.js";
import { WebSocketTransport } from "../transport/websocket/websocket.js";
import { describeValue } from "../util/whole-number.js";
import { isBuiltInTransport, type TransportName } from "./builtin-names.js";
import { ConfigError, readRegisteredConfig, type McpServerConfig } from "./server-config.js";
import { registeredTransport, unknownTransport } from "./transport-registry.js";
import { declaredAuth } from "./declared-auth.js";
import { TRANSPORT_OPTION_NAMES, checkTransportOptions, type TransportOptions } from "./transport-options.js";
import { shownUrl } from "../util/shown-url.js";

/** The former name of `TransportOptions`, kept for code written against it. */
export type TransportExtras = TransportOptions;

export function transportFor(config: McpServerConfig, options: TransportOptions = {}): McpTransport {
  return buildTransport(config, options, `transportFor(): server "${config.name}"`);
}

/**
 * The same, for callers that name themselves in messages (`connect()`) and read other keys of the
 * same options object themselves (`otherNames`, offered in "did you mean").
 */
export function buildTransport(config: McpServerConfig, options: TransportOptions, where: string, otherNames: readonly string[] = []): McpTransport {
  if (!isBuiltInTransport(config.transport)) return buildRegistered(config, options, where, otherNames);
  checkTransportOptions(options, { transport: config.transport, description: describeConfig(config) }, where, otherNames);
  const settings = settingsFor(config, options);
  switch (config.transport) {
    case "stdio":
      return new StdioTransport({ command: config.command!, args: config.args, ...settings });
    case "http": {
      // Streamable HTTP, falling back to legacy HTTP+SSE on 400/404/405, unless told not to.
      const { fallback, ...http } = settings as TransportOptions;
      return fallback === false ? new StreamableHttpTransport(config.url!, http) : new HttpTransport(config.url!, http);
    }
    case "websocket":
      return new WebSocketTransport(config.url!, settings);
    case "sse":
      return new SseTransport(config.url!, settings);
  }
}

/**
 * A registered transport, built by its factory from the declaration's own keys. Options beside
 * the declaration are refused: such a transport's keys are in the declaration.
 */
function buildRegistered(config: McpServerConfig, options: TransportOptions, where: string, otherNames: readonly string[]): McpTransport {
  const factory = registeredTransport(config.transport);
  // Unregistered since the declaration was read.
  if (!factory) throw new ConfigError(`${where}: ${unknownTransport(config.transport)}`);
  const description = `the ${config.transport} transport (registered) of server "${config.name}"`;
  checkTransportOptions(options, { transport: config.transport, description, registered: true }, where, otherNames);
  // Read again: a declaration given to transportFor() directly has not been read yet.
  const { options: parsed, context } = readRegisteredConfig(config as unknown as Record<string, unknown>, factory, where);
  const transport: unknown = factory.create(parsed, context);
  if (!isMcpTransport(transport)) {
    throw new TypeError(`${where}: the factory of the ${config.transport} transport returned ${describeValue(transport)}, not an McpTransport (an object with kind, description and open)`);
  }
  return transport;
}

/** The transport's options: each from the call if given there, else from the declaration. */
function settingsFor(config: McpServerConfig, options: TransportOptions): TransportOptions {
  const declared = config as unknown as Record<string, unknown>;
  const given = options as Record<string, unknown>;
  const settings: Record<string, unknown> = {};
  for (const name of TRANSPORT_OPTION_NAMES[config.transport as TransportName]) {
    const value = given[name] ?? declared[name];
    if (value !== undefined) settings[name] = value;
  }
  if (config.transport === "stdio") {
    if (config.env !== undefined && options.env !== undefined) settings.env = { ...config.env, ...options.env };
  } else {
    // A declared auth block is data; the provider given in code, if any, is the one used.
    if (options.auth === undefined) {
      if (config.auth !== undefined) settings.auth = declaredAuth(config);
      else delete settings.auth;
    }
    const headers = mergeHeaders(config.headers, options.headers);
    if (headers !== undefined) settings.headers = headers;
  }
  return settings as TransportOptions;
}

function describeConfig(config: McpServerConfig): string {
  if (config.transport !== "stdio") return `the ${config.transport} endpoint ${shownUrl(config.url!)}`;
  const line = [config.command!, ...(config.args ?? [])].map((word) => (/[\s"'\\]/.test(word) ? JSON.stringify(word) : word)).join(" ");
  return `the command line ${line.length > 120 ? `${line.slice(0, 119)}…` : line} (stdio)`;
}

/** Declared headers, with those computed by code on top (per request when code gives a function). */
export function mergeHeaders(declared: Record<string, string> | undefined, computed: HeadersOption | undefined): HeadersOption | undefined {
  if (computed === undefined) return declared;
  if (typeof computed === "function") return async () => ({ ...declared, ...(await computed()) });
  // Anything but an object goes on as given, for the transport to refuse in its words: spread
  // here, a string or a list would become headers named "0", "1"... and be sent.
  if (typeof computed !== "object" || computed === null || Array.isArray(computed)) return computed;
  return { ...declared, ...computed };
}
