/**
 * The gateway's settings as the ConfigMap gives them, read the way the gateway reads its
 * variables (durations in the CLI's form), each unset one taking the gateway's own default.
 */
import { parseDuration } from "../../src/cli/args.js";
import { GATEWAY_DEFAULTS, type LegacyMode } from "../../src/gateway/gateway-options.js";
import { DEFAULT_LIMITS } from "../../src/transport/limits.js";
import { at, manifest } from "./manifests.js";

export const CONFIGMAP_NAME = "mcpwire-gateway";

export function configMapData(): Record<string, string> {
  return at(manifest("ConfigMap", CONFIGMAP_NAME), "data") as Record<string, string>;
}

function wholeNumber(name: string, text: string): number {
  if (!/^\d+$/.test(text)) throw new Error(`${name} ${JSON.stringify(text)} is not a whole number`);
  return Number(text);
}

export interface GatewaySettings {
  legacy: LegacyMode;
  listen: string;
  adminListen: string | undefined;
  path: string;
  poolMax: number;
  maxSessions: number;
  maxRequests: number;
  maxQueue: number;
  maxBodyBytes: number;
  childMaxMessageBytes: number;
  drainDelayMs: number;
  drainMs: number;
  sessionIdleMs: number;
  requestTimeoutMs: number;
  envAllow: string[];
  allowedHosts: string[];
  tokenFile: string | undefined;
}

export function gatewaySettings(data = configMapData()): GatewaySettings {
  const count = (name: string, fallback: number) => (data[name] === undefined ? fallback : wholeNumber(name, data[name]));
  const duration = (name: string, fallback: number) => (data[name] === undefined ? fallback : parseDuration(data[name]));
  const list = (name: string) => (data[name] ?? "").split(",").map((item) => item.trim()).filter(Boolean);
  const legacy = data.MCPWIRE_GATEWAY_LEGACY ?? GATEWAY_DEFAULTS.legacy;
  if (legacy !== "session" && legacy !== "stateless") throw new Error(`MCPWIRE_GATEWAY_LEGACY ${JSON.stringify(legacy)} is neither session nor stateless`);
  return {
    legacy,
    listen: data.MCPWIRE_GATEWAY_LISTEN ?? GATEWAY_DEFAULTS.listen,
    adminListen: data.MCPWIRE_GATEWAY_ADMIN_LISTEN,
    path: data.MCPWIRE_GATEWAY_PATH ?? GATEWAY_DEFAULTS.path,
    poolMax: count("MCPWIRE_GATEWAY_POOL_MAX", GATEWAY_DEFAULTS.poolMax),
    maxSessions: count("MCPWIRE_GATEWAY_MAX_SESSIONS", GATEWAY_DEFAULTS.maxSessions),
    maxRequests: count("MCPWIRE_GATEWAY_MAX_REQUESTS", GATEWAY_DEFAULTS.maxRequests),
    maxQueue: count("MCPWIRE_GATEWAY_MAX_QUEUE", GATEWAY_DEFAULTS.maxQueue),
    maxBodyBytes: count("MCPWIRE_GATEWAY_MAX_BODY_BYTES", GATEWAY_DEFAULTS.maxBodyBytes),
    childMaxMessageBytes: count("MCPWIRE_GATEWAY_CHILD_MAX_MESSAGE_BYTES", DEFAULT_LIMITS.maxMessageBytes),
    drainDelayMs: duration("MCPWIRE_GATEWAY_DRAIN_DELAY", GATEWAY_DEFAULTS.drainDelayMs),
    drainMs: duration("MCPWIRE_GATEWAY_DRAIN_MS", GATEWAY_DEFAULTS.drainMs),
    sessionIdleMs: duration("MCPWIRE_GATEWAY_SESSION_IDLE", GATEWAY_DEFAULTS.sessionIdleMs),
    requestTimeoutMs: duration("MCPWIRE_GATEWAY_REQUEST_TIMEOUT", GATEWAY_DEFAULTS.requestTimeoutMs),
    envAllow: list("MCPWIRE_GATEWAY_ENV_ALLOW"),
    allowedHosts: list("MCPWIRE_GATEWAY_ALLOWED_HOSTS"),
    tokenFile: data.MCPWIRE_GATEWAY_TOKEN_FILE,
  };
}

/** The port of a `host:port`. */
export function portOf(hostPort: string): number {
  const match = /:(\d+)$/.exec(hostPort);
  if (!match) throw new Error(`${JSON.stringify(hostPort)} has no port`);
  return Number(match[1]);
}
