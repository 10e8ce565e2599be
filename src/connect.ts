/**
 * `connect(target)`: the one call most code needs. It resolves the target to a transport (see
 * `src/config/targets.ts` for what is accepted and which transport each picks), opens it, settles
 * the protocol, and returns a ready `McpClient`.
 */
import { CLIENT_OPTION_NAMES, McpClient, type ClientOptions } from "./client/client.js";
import type { McpServerConfig } from "./config/server-config.js";
import { resolveTarget, type ConnectTarget } from "./config/targets.js";
import type { TransportOptions } from "./config/transport-options.js";
import { McpTransportError } from "./errors.js";
import { LIMIT_NAMES, type Limits } from "./transport/limits.js";

/**
 * The client's options and those of the transport the target resolves to (see
 * `TRANSPORT_OPTION_NAMES`). A key that neither reads is a TypeError naming it.
 */
export type ConnectOptions = ClientOptions & TransportOptions;

const CLIENT_KEYS: ReadonlySet<string> = new Set(CLIENT_OPTION_NAMES);

/**
 * Connects to a server. The ceilings a declaration sets apply unless `options` sets them too, and
 * so do its transport's options (code given at the call site is the most specific word).
 */
export async function connect(target: ConnectTarget, options: ConnectOptions = {}): Promise<McpClient> {
  if (typeof options !== "object" || options === null) throw new TypeError("connect(): options must be an object");
  const clientOptions: Record<string, unknown> = {};
  const transportOptions: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) {
    // An option given as undefined is not given: it must not hide what a declaration says.
    if (value !== undefined) (CLIENT_KEYS.has(key) ? clientOptions : transportOptions)[key] = value;
  }
  const { transport, config } = resolveTarget(target, transportOptions as TransportOptions, "connect()", CLIENT_OPTION_NAMES);
  try {
    return await McpClient.connect(transport, { ...limitsOf(config), ...(clientOptions as ClientOptions) });
  } catch (error) {
    throw withPathHint(error, config);
  }
}

function limitsOf(config: McpServerConfig | undefined): Partial<Limits> {
  const limits: Partial<Limits> = {};
  if (!config) return limits;
  for (const name of LIMIT_NAMES) if (config[name] !== undefined) limits[name] = config[name];
  return limits;
}

/** A 404 at a bare host usually means the endpoint has a path, most often `/mcp`. */
function withPathHint(error: unknown, config: McpServerConfig | undefined): unknown {
  if (!(error instanceof McpTransportError) || error.httpStatus !== 404 || !config?.url) return error;
  let url: URL;
  try {
    url = new URL(config.url);
  } catch {
    return error;
  }
  if (url.pathname !== "/" && url.pathname !== "") return error;
  const suggestion = new URL("/mcp", url).href;
  return error.with({}, `${error.message}; the URL has no path: MCP endpoints usually have one, often /mcp (try ${suggestion})`);
}

export { resolveTarget, type ConnectTarget };
