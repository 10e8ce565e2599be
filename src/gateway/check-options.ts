/**
 * `checkGatewayOptions`: the one place `GatewayOptions` are checked, when `createGateway` is
 * called (the CLI builds the same object, so its flags and variables meet the same checks). An
 * unknown key is refused with a "did you mean"; a bad value names the option, what was given and
 * what it takes. What comes out has every default filled in, so nothing downstream guesses.
 */
import type { IncomingMessage } from "node:http";
import { splitCommandLine } from "../config/shell-words.js";
import { LIMIT_NAMES, checkLimit, type Limits } from "../transport/limits.js";
import { checkEnv, checkEnvAllow } from "../transport/stdio/child-env.js";
import { didYouMean, firstUnknownKey } from "../util/option-names.js";
import { checkWholeNumber, describeValue } from "../util/whole-number.js";
import { checkChildStderr } from "./children/check-options.js";
import type { ChildStderrMode } from "./children/child-stderr.js";
import { GATEWAY_DEFAULTS, type GatewayOptions, type LegacyMode, type Principal } from "./gateway-options.js";
import { isLoopbackHost } from "../util/loopback.js";
import { parseListenAddress, type ListenAddress } from "./ops/listen-address.js";

const WHERE = "createGateway";

/** Every key `GatewayOptions` takes; anything else is refused. */
export const GATEWAY_OPTION_NAMES = [
  "target",
  "listen",
  "path",
  "poolMin",
  "poolMax",
  "recycleAfter",
  "poolIdleMs",
  "legacy",
  "allowedHosts",
  "allowedOrigins",
  "tokenFile",
  "authorize",
  "adminListen",
  "drainDelayMs",
  "drainMs",
  "maxBodyBytes",
  "maxRequests",
  "maxQueue",
  "maxSessions",
  "maxSessionsPerPrincipal",
  "maxListenStreams",
  "requestTimeoutMs",
  "sessionIdleMs",
  "maxStoredEvents",
  "childLimits",
  "childStderr",
  "log",
] as const satisfies readonly (keyof GatewayOptions)[];

const TARGET_KEYS = ["command", "args", "env", "envAllow", "cwd"] as const;
const CHILD_LIMIT_NAMES = LIMIT_NAMES.filter((name) => name !== "timeoutMs");

/** The stdio server to run, as an argv. */
export interface ResolvedTarget {
  command: string;
  args: readonly string[];
  env: Readonly<Record<string, string>>;
  /** Variables of the gateway's environment the children inherit, beside the default list. */
  envAllow: readonly string[];
  cwd?: string;
}

/** `GatewayOptions` checked, with every default filled in. */
export interface ResolvedGatewayOptions {
  target: ResolvedTarget;
  listen: ListenAddress;
  path: string;
  poolMin: number;
  poolMax: number;
  recycleAfter: number;
  /** 0: the pool never shrinks. */
  poolIdleMs: number;
  legacy: LegacyMode;
  /** Lowercased `host` or `host:port` values; empty when none were given. */
  allowedHosts: readonly string[];
  /** Origins as `URL.origin` spells them. */
  allowedOrigins: readonly string[];
  tokenFile?: string;
  authorize?: (request: IncomingMessage) => Principal | undefined | Promise<Principal | undefined>;
  adminListen?: ListenAddress;
  drainDelayMs: number;
  drainMs: number;
  maxBodyBytes: number;
  maxRequests: number;
  maxQueue: number;
  maxSessions: number;
  maxSessionsPerPrincipal: number;
  maxListenStreams: number;
  requestTimeoutMs: number;
  sessionIdleMs: number;
  maxStoredEvents: number;
  /** The four ceilings toward each child, `timeoutMs` being `requestTimeoutMs`. */
  childLimits: Partial<Limits>;
  childStderr: ChildStderrMode;
  log: (line: string) => void;
}

export function checkGatewayOptions(options: GatewayOptions): ResolvedGatewayOptions {
  if (typeof options !== "object" || options === null) throw new TypeError(`${WHERE}: options must be an object with at least "target"`);
  const unknown = firstUnknownKey(options, GATEWAY_OPTION_NAMES);
  if (unknown !== undefined) {
    throw new TypeError(`${WHERE}: unknown option "${unknown}"${didYouMean(unknown, GATEWAY_OPTION_NAMES)}; the options are ${GATEWAY_OPTION_NAMES.join(", ")}`);
  }
  const whole = (name: keyof typeof GATEWAY_DEFAULTS & keyof GatewayOptions, min: number, max?: number): number => {
    const value = options[name];
    if (value === undefined) return GATEWAY_DEFAULTS[name] as number;
    return checkWholeNumber(value, name, WHERE, { min, max, defaultValue: GATEWAY_DEFAULTS[name] as number });
  };
  const poolMin = whole("poolMin", 0, 1_000);
  const poolMax = whole("poolMax", 1, 1_000);
  if (poolMin > poolMax) throw new TypeError(`${WHERE}: "poolMin" (${poolMin}) is more than "poolMax" (${poolMax}); give poolMin <= poolMax`);
  const recycleAfter =
    options.recycleAfter === undefined || options.recycleAfter === Number.POSITIVE_INFINITY
      ? GATEWAY_DEFAULTS.recycleAfter
      : checkWholeNumber(options.recycleAfter, "recycleAfter", WHERE, { min: 1 });
  const poolIdleMs =
    options.poolIdleMs === undefined
      ? GATEWAY_DEFAULTS.poolIdleMs
      : checkWholeNumber(options.poolIdleMs, "poolIdleMs", WHERE, { min: 0, minMeans: "never shrink the pool", defaultValue: GATEWAY_DEFAULTS.poolIdleMs });

  const listen = listenAddress(options.listen ?? GATEWAY_DEFAULTS.listen, "listen");
  const allowedHosts = checkList(options.allowedHosts, "allowedHosts").map((host) => checkHost(host));
  // DNS rebinding: a server on a reachable interface that takes any Host answers any name that
  // resolves to it, a web page's included. Loopback alone is safe by default.
  if (!isLoopbackHost(listen.host) && allowedHosts.length === 0) {
    throw new TypeError(
      `${WHERE}: "listen" ${JSON.stringify(options.listen)} is not a loopback address, so "allowedHosts" must name the Host values callers use ` +
        '(e.g. allowedHosts: ["mcp.example.com"]); without it any site could reach the gateway through DNS rebinding',
    );
  }
  const allowedOrigins = checkList(options.allowedOrigins, "allowedOrigins").map((origin) => checkOrigin(origin));

  if (options.tokenFile !== undefined && (typeof options.tokenFile !== "string" || options.tokenFile.trim() === "")) {
    throw new TypeError(`${WHERE}: "tokenFile" must be the path of a file holding the bearer token, got ${describeValue(options.tokenFile)}`);
  }
  if (options.authorize !== undefined && typeof options.authorize !== "function") {
    throw new TypeError(`${WHERE}: "authorize" must be a function (request) => { principal } | undefined, got ${describeValue(options.authorize)}`);
  }
  if (options.authorize !== undefined && options.tokenFile !== undefined) {
    throw new TypeError(`${WHERE}: "tokenFile" and "authorize" both decide who a caller is; give one`);
  }
  const legacy = options.legacy ?? GATEWAY_DEFAULTS.legacy;
  if (legacy !== "session" && legacy !== "stateless") {
    throw new TypeError(`${WHERE}: "legacy" must be "session" or "stateless", got ${describeValue(legacy)}`);
  }
  checkChildStderr(options.childStderr, WHERE);
  const childStderr = options.childStderr ?? GATEWAY_DEFAULTS.childStderr;
  const path = options.path ?? GATEWAY_DEFAULTS.path;
  if (typeof path !== "string" || !/^\/[!$&'()*+,;=:@%\w.~/-]*$/.test(path)) {
    throw new TypeError(`${WHERE}: "path" must be a URL path starting with "/", such as "/mcp", got ${describeValue(path)}`);
  }
  if (options.log !== undefined && typeof options.log !== "function") {
    throw new TypeError(`${WHERE}: "log" must be a function taking one line, got ${describeValue(options.log)}`);
  }
  const requestTimeoutMs = whole("requestTimeoutMs", 1);
  return {
    target: checkTarget(options.target),
    listen,
    path,
    poolMin,
    poolMax,
    recycleAfter,
    poolIdleMs,
    legacy,
    allowedHosts,
    allowedOrigins,
    tokenFile: options.tokenFile,
    authorize: options.authorize,
    adminListen: options.adminListen === undefined ? undefined : listenAddress(options.adminListen, "adminListen"),
    drainDelayMs: whole("drainDelayMs", 0),
    drainMs: whole("drainMs", 0),
    maxBodyBytes: whole("maxBodyBytes", 1),
    maxRequests: whole("maxRequests", 1, 1_000_000),
    maxQueue: whole("maxQueue", 0, 1_000_000),
    maxSessions: whole("maxSessions", 1, 10_000_000),
    maxSessionsPerPrincipal: whole("maxSessionsPerPrincipal", 1, 10_000_000),
    maxListenStreams: whole("maxListenStreams", 1, 1_000_000),
    requestTimeoutMs,
    sessionIdleMs: whole("sessionIdleMs", 1),
    maxStoredEvents: whole("maxStoredEvents", 0, 1_000_000),
    childLimits: { ...checkChildLimits(options.childLimits), timeoutMs: requestTimeoutMs },
    childStderr,
    log: options.log ?? ((line) => process.stderr.write(`${line}\n`)),
  };
}

function listenAddress(value: unknown, name: string): ListenAddress {
  if (typeof value !== "string") throw new TypeError(`${WHERE}: "${name}" must be host:port, such as "127.0.0.1:8080", got ${describeValue(value)}`);
  try {
    return parseListenAddress(value, name);
  } catch (error) {
    throw new TypeError(`${WHERE}: ${(error as Error).message}`, { cause: error });
  }
}

function checkTarget(target: unknown): ResolvedTarget {
  if (typeof target === "string") {
    if (target.trim() === "") throw new TypeError(`${WHERE}: "target" must be the command line of a stdio server, such as "npx -y @modelcontextprotocol/server-memory", got ""`);
    let argv: string[];
    try {
      argv = splitCommandLine(target);
    } catch (error) {
      throw new TypeError(`${WHERE}: "target": ${(error as Error).message}; the command runs without a shell`, { cause: error });
    }
    const [command, ...args] = argv;
    if (command === undefined) throw new TypeError(`${WHERE}: "target" holds no command`);
    return { command, args, env: {}, envAllow: [] };
  }
  if (typeof target !== "object" || target === null || Array.isArray(target)) {
    throw new TypeError(`${WHERE}: "target" must be a command line or { command, args?, env?, envAllow?, cwd? }, got ${describeValue(target)}`);
  }
  const given = target as Record<string, unknown>;
  const unknown = firstUnknownKey(given, TARGET_KEYS);
  if (unknown !== undefined) throw new TypeError(`${WHERE}: unknown key "target.${unknown}"${didYouMean(unknown, TARGET_KEYS)}; "target" takes ${TARGET_KEYS.join(", ")}`);
  if (typeof given.command !== "string" || given.command.trim() === "" || given.command.includes("\0")) {
    throw new TypeError(`${WHERE}: "target.command" must name a program, got ${describeValue(given.command)}`);
  }
  const args = given.args ?? [];
  if (!Array.isArray(args) || args.some((arg) => typeof arg !== "string" || arg.includes("\0"))) {
    throw new TypeError(`${WHERE}: "target.args" must be an array of strings`);
  }
  const env = given.env === undefined ? {} : (checkEnv(given.env, `${WHERE} "target"`) as Record<string, string>);
  if (Object.values(env).some((value) => typeof value !== "string")) throw new TypeError(`${WHERE}: "target.env" values must be strings`);
  const envAllow = given.envAllow === undefined ? [] : checkEnvAllow(given.envAllow, `${WHERE} "target"`);
  if (given.cwd !== undefined && (typeof given.cwd !== "string" || given.cwd === "")) {
    throw new TypeError(`${WHERE}: "target.cwd" must be a directory path, got ${describeValue(given.cwd)}`);
  }
  return { command: given.command, args: [...(args as string[])], env, envAllow: [...envAllow], cwd: given.cwd as string | undefined };
}

function checkList(value: unknown, name: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((item) => typeof item !== "string" || item.trim() === "")) {
    throw new TypeError(`${WHERE}: "${name}" must be an array of non-empty strings, got ${describeValue(value)}`);
  }
  return value.map((item: string) => item.trim());
}

/** `host` or `host:port`, `[v6]` or `[v6]:port`, lowercased; no scheme, path or wildcard. */
function checkHost(host: string): string {
  if (!/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/.test(host)) {
    throw new TypeError(`${WHERE}: "allowedHosts" entry ${JSON.stringify(host)} is not a host or host:port (such as "mcp.example.com" or "10.0.0.5:8080"); no scheme, path or wildcard`);
  }
  return host.toLowerCase();
}

/** An exact `scheme://host[:port]`, as browsers send it. */
function checkOrigin(origin: string): string {
  let url: URL | undefined;
  try {
    url = new URL(origin);
  } catch {
    url = undefined;
  }
  if (url === undefined || !/^https?:$/.test(url.protocol) || url.pathname !== "/" || url.search !== "" || url.hash !== "" || url.username !== "") {
    throw new TypeError(`${WHERE}: "allowedOrigins" entry ${JSON.stringify(origin)} is not an origin such as "https://app.example.com" or "http://localhost:5173" (scheme, host and port only)`);
  }
  return url.origin;
}

function checkChildLimits(value: unknown): Partial<Omit<Limits, "timeoutMs">> {
  if (value === undefined) return {};
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new TypeError(`${WHERE}: "childLimits" must be an object with some of ${CHILD_LIMIT_NAMES.join(", ")}, got ${describeValue(value)}`);
  }
  const unknown = firstUnknownKey(value, CHILD_LIMIT_NAMES);
  if (unknown !== undefined) {
    const hint = unknown === "timeoutMs" ? '; a child request\'s time is "requestTimeoutMs"' : didYouMean(unknown, CHILD_LIMIT_NAMES);
    throw new TypeError(`${WHERE}: unknown key "childLimits.${unknown}"${hint}; it takes ${CHILD_LIMIT_NAMES.join(", ")}`);
  }
  const limits: Partial<Limits> = {};
  for (const name of CHILD_LIMIT_NAMES) {
    const given = (value as Record<string, unknown>)[name];
    if (given !== undefined) limits[name] = checkLimit(name, given, `${WHERE}: "childLimits"`);
  }
  return limits;
}
