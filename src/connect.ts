/**
 * `connect(target)`: the one call most code needs. It resolves the target to a transport (see
 * `src/config/targets.ts` for what is accepted and which transport each picks), opens it, settles
 * the protocol, and returns a ready `McpClient`.
 */
import { McpClient, type ClientOptions } from "./client/client.js";
import type { McpServerConfig } from "./config/server-config.js";
import { resolveTarget, type ConnectTarget } from "./config/targets.js";
import type { TransportExtras } from "./config/transport-for.js";
import { McpTransportError } from "./errors.js";
import { LIMIT_NAMES, type Limits } from "./transport/limits.js";

export type ConnectOptions = ClientOptions & TransportExtras;

/**
 * Connects to a server. The ceilings a declaration sets apply unless `options` sets them too
 * (code given at the call site is the most specific word).
 */
export async function connect(target: ConnectTarget, options: ConnectOptions = {}): Promise<McpClient> {
  const { stderr, fetch, headers, ...clientOptions } = options;
  const { transport, config } = resolveTarget(target, { stderr, fetch, headers });
  try {
    return await McpClient.connect(transport, { ...limitsOf(config), ...clientOptions });
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
