/**
 * `mcpwire gateway <target> --listen host:port [options]`: a stdio server served over HTTP
 * (gateway/gateway.ts) until SIGTERM, which drains (gateway/ops/drain.ts). Every option of
 * `GatewayOptions` has a flag and a variable `MCPWIRE_GATEWAY_<NAME>` (the flag's name in upper
 * case, `-` as `_`); a flag wins over its variable, and a variable of that prefix that is none of
 * these is refused, so a typo in a deployment never passes unnoticed. Logs are JSON lines on
 * stderr; the first says where the gateway listens.
 */
import type { ParseArgsConfig } from "node:util";
import { splitCommandLine as splitWords } from "../../config/shell-words.js";
import { McpTransportError } from "../../errors.js";
import { createGateway, type Gateway } from "../../gateway/gateway.js";
import type { GatewayOptions } from "../../gateway/gateway-options.js";
import { onShutdownSignals } from "../../gateway/ops/shutdown-signals.js";
import { isLoopbackHost } from "../../util/loopback.js";
import { didYouMean } from "../../util/option-names.js";
import { parseDuration, parseEnvAllow } from "../args.js";
import { ExitCode } from "../exit-codes.js";
import { parseStrictArgs } from "../strict-args.js";
import { UsageError } from "../usage.js";

/** The prefix of the gateway's variables. */
export const GATEWAY_ENV_PREFIX = "MCPWIRE_GATEWAY_";

/** `duration` is positive; `wait` may also be 0 (no wait at all); `choice` is one of the flag's `values`. */
type ValueKind = "text" | "list" | "count" | "duration" | "wait" | "choice";

/** Each flag: the option it sets and how its text is read. */
const FLAGS = {
  "env-allow": { kind: "list" },
  listen: { kind: "text" },
  path: { kind: "text" },
  "pool-min": { kind: "count" },
  "pool-max": { kind: "count" },
  "recycle-after": { kind: "count" },
  "pool-idle": { kind: "wait" },
  legacy: { kind: "text" },
  "allowed-hosts": { kind: "list" },
  "allowed-origins": { kind: "list" },
  "token-file": { kind: "text" },
  "admin-listen": { kind: "text" },
  "drain-delay": { kind: "wait" },
  "drain-ms": { kind: "wait" },
  "max-body-bytes": { kind: "count" },
  "max-requests": { kind: "count" },
  "max-queue": { kind: "count" },
  "max-sessions": { kind: "count" },
  "max-sessions-per-principal": { kind: "count" },
  "max-listen-streams": { kind: "count" },
  "request-timeout": { kind: "duration" },
  "session-idle": { kind: "duration" },
  "max-stored-events": { kind: "count" },
  "child-max-message-bytes": { kind: "count" },
  "child-read-timeout": { kind: "duration" },
  "child-max-in-flight": { kind: "count" },
  "child-stderr": { kind: "choice", values: ["log", "drop"] },
} as const satisfies Record<string, { kind: ValueKind; values?: readonly string[] }>;

type FlagName = keyof typeof FLAGS;
const FLAG_NAMES = Object.keys(FLAGS) as FlagName[];

/** The variable of a flag: `--pool-min` is `MCPWIRE_GATEWAY_POOL_MIN`. */
export function variableOf(flag: string): string {
  return `${GATEWAY_ENV_PREFIX}${flag.toUpperCase().replace(/-/g, "_")}`;
}

const TARGET_VARIABLE = `${GATEWAY_ENV_PREFIX}TARGET`;
const VARIABLES: ReadonlySet<string> = new Set([TARGET_VARIABLE, ...FLAG_NAMES.map(variableOf)]);

export const GATEWAY_HELP = `mcpwire gateway: serve a stdio MCP server over Streamable HTTP

Usage: mcpwire gateway <target> --listen host:port [options]
       mcpwire gateway <url> --stdio [options]      (a remote server on stdin and stdout)

<target> is the server's command line in one quoted argument, run without a shell:
  mcpwire gateway "npx -y @modelcontextprotocol/server-memory" --listen 127.0.0.1:8080

Options (each also a variable: --pool-min is MCPWIRE_GATEWAY_POOL_MIN; a flag wins):
  --listen host:port                 where MCP is served (default 127.0.0.1:8080)
  --path /mcp                        the endpoint's path (default /mcp)
  --env-allow NAME,...               variables of this environment the server inherits, beside the default list
  --pool-min N, --pool-max N         children kept warm, and the most, for 2026-07-28 callers (default 1, 4)
  --recycle-after N                  replace a pool child after N requests (default never)
  --pool-idle <duration>             close a pool child above --pool-min idle this long (default 60s; 0 never)
  --legacy session|stateless         legacy callers: a child per Mcp-Session-Id (default), or the pool
  --allowed-hosts a,b                Host values accepted; required when --listen is not loopback
  --allowed-origins a,b              browser Origins accepted (others get 403); CORS for those only
  --token-file F                     callers must send "Authorization: Bearer <the file's token>"
  --admin-listen host:port           serve /healthz, /readyz and /metrics there
  --drain-delay <duration>           after SIGTERM, keep serving this long (default 5s)
  --drain-ms <duration>              then give requests in flight this long (default 30000)
  --max-body-bytes N                 the largest request body (default 4194304)
  --max-requests N, --max-queue N    requests in flight, and waiting, before 503 (default 256, 256)
  --max-sessions N                   legacy sessions on this replica (default 100)
  --max-sessions-per-principal N     legacy sessions of one caller (default 10)
  --max-listen-streams N             subscriptions/listen streams open at once (default 256)
  --request-timeout <duration>       one request through the gateway (default 60s)
  --session-idle <duration>          end a legacy session idle this long (default 10m)
  --max-stored-events N              events kept per session for Last-Event-ID, for its GET stream
                                     and again for its requests' streams (default 256)
  --child-max-message-bytes N        the largest message to or from a child (default 16 MiB)
  --child-read-timeout <duration>    how long a child may stay silent while a request waits (default 5m)
  --child-max-in-flight N            requests in flight in one child (default 64)
  --child-stderr log|drop            each line a child writes on stderr as a log line (default), or none
  -h, --help                         show this help

Durations: 5000, 500ms, 30s, 2m. Logs are JSON lines on stderr. SIGTERM drains and exits 0;
a second SIGTERM, or SIGINT, stops without waiting.
`;

export interface HttpGatewayCliIo {
  env: Readonly<Record<string, string | undefined>>;
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  /** Called with the gateway once it listens (tests). */
  started?: (gateway: Gateway) => void;
}

/** Runs `mcpwire gateway <target> ...` until it is stopped; resolves with the exit code. */
export async function runHttpGatewayCli(argv: readonly string[], io: HttpGatewayCliIo = { env: process.env, stdout: process.stdout, stderr: process.stderr }): Promise<number> {
  let options: GatewayOptions | "help";
  try {
    options = gatewayOptionsFrom(argv, io.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr.write(`mcpwire gateway: ${error.message} (see mcpwire gateway --help)\n`);
    return ExitCode.USAGE;
  }
  if (options === "help") {
    io.stdout.write(GATEWAY_HELP);
    return ExitCode.OK;
  }
  let gateway: Gateway;
  try {
    gateway = createGateway({ ...options, log: (line) => io.stderr.write(`${line}\n`) });
  } catch (error) {
    // A value in range for its type but not for the gateway (poolMin over poolMax, an unreadable token file).
    io.stderr.write(`mcpwire gateway: ${(error as Error).message} (see mcpwire gateway --help)\n`);
    return ExitCode.USAGE;
  }
  const shutdown = onShutdownSignals(gateway.drain);
  try {
    await gateway.listen();
  } catch (error) {
    io.stderr.write(`mcpwire gateway: ${listenFailure(error, options)}\n`);
    await gateway.drain.hurry();
    shutdown.dispose();
    return ExitCode.UNAVAILABLE;
  }
  io.started?.(gateway);
  const code = await shutdown.exitCode;
  shutdown.dispose();
  return code;
}

/**
 * Which address could not be listened on, and why (the errno code). The gateway listens on two:
 * the MCP port fails with Node's own error, and the admin server (started after it) with an
 * McpTransportError of its own, its errno in `cause`. Naming the MCP port for the admin's failure
 * would send the operator looking at a port that was free.
 */
function listenFailure(error: unknown, options: GatewayOptions): string {
  if (error instanceof McpTransportError && options.adminListen !== undefined) {
    const code = (error.cause as NodeJS.ErrnoException | undefined)?.code ?? "error";
    return `cannot listen on ${options.adminListen}, the --admin-listen address (${code})`;
  }
  return `cannot listen on ${options.listen ?? "127.0.0.1:8080"} (${(error as NodeJS.ErrnoException).code ?? "error"})`;
}

/** The options the command line and the variables give; "help" for `--help`. */
export function gatewayOptionsFrom(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): GatewayOptions | "help" {
  const parsed = parseFlags(argv);
  if (parsed === "help") return "help";
  for (const name of Object.keys(env)) {
    if (name.startsWith(GATEWAY_ENV_PREFIX) && !VARIABLES.has(name) && env[name] !== undefined) {
      throw new UsageError(`unknown variable ${name}${didYouMean(name, VARIABLES)}; the variables are ${[...VARIABLES].join(", ")}`);
    }
  }
  const given = (flag: FlagName): { text: string; from: string } | undefined => {
    const value = parsed.values[flag];
    if (value !== undefined) return { text: value, from: `--${flag}` };
    const variable = env[variableOf(flag)];
    return variable === undefined ? undefined : { text: variable, from: variableOf(flag) };
  };
  const targetText = parsed.target ?? env[TARGET_VARIABLE];
  if (targetText === undefined || targetText.trim() === "") {
    throw new UsageError(`give the stdio server to serve: mcpwire gateway "<command line>" --listen host:port (or ${TARGET_VARIABLE})`);
  }
  const options: Record<string, unknown> = {};
  const envAllow = given("env-allow");
  options.target = envAllow === undefined ? targetText.trim() : { ...targetOf(targetText), envAllow: parseEnvAllow([envAllow.text]) };

  for (const flag of FLAG_NAMES) {
    if (flag === "env-allow") continue;
    const value = given(flag);
    if (value === undefined) continue;
    assign(options, flag, read(FLAGS[flag], value.text, value.from));
  }
  const listen = typeof options.listen === "string" ? options.listen : undefined;
  const host = listen === undefined ? undefined : /^(?:\[([^\]]+)\]|([^:]+)):\d+$/.exec(listen);
  if (host && !isLoopbackHost((host[1] ?? host[2])!) && options.allowedHosts === undefined) {
    throw new UsageError(`--listen ${listen} is not a loopback address: give --allowed-hosts with the Host names callers use (DNS rebinding)`);
  }
  return options as unknown as GatewayOptions;
}

function parseFlags(argv: readonly string[]): { target?: string; values: Partial<Record<FlagName, string>> } | "help" {
  const config: NonNullable<ParseArgsConfig["options"]> = { help: { type: "boolean", short: "h" } };
  for (const flag of FLAG_NAMES) config[flag] = { type: "string" };
  const parsed: { values: Record<string, string | boolean | (string | boolean)[] | undefined>; positionals: string[] } = parseStrictArgs(argv, config);
  if (parsed.values.help === true) return "help";
  if (parsed.positionals.length > 1) {
    throw new UsageError(`gateway takes one target, got also ${parsed.positionals.slice(1).map((p) => JSON.stringify(p)).join(" ")}; quote the command line as one argument`);
  }
  const values: Partial<Record<FlagName, string>> = {};
  for (const flag of FLAG_NAMES) {
    const value = parsed.values[flag];
    if (typeof value === "string") values[flag] = value;
  }
  return { target: parsed.positionals[0], values };
}

function read({ kind, values }: { kind: ValueKind; values?: readonly string[] }, text: string, from: string): unknown {
  switch (kind) {
    case "text":
      return text.trim();
    case "choice":
      if (!values!.includes(text.trim())) throw new UsageError(`${from} ${JSON.stringify(text)} is not one of ${values!.join(", ")}`);
      return text.trim();
    case "list":
      return text.split(",").map((item) => item.trim()).filter((item) => item !== "");
    case "count":
      if (!/^\s*\d+\s*$/.test(text)) throw new UsageError(`${from} ${JSON.stringify(text)} is not a whole number`);
      return Number(text);
    case "wait":
    case "duration":
      if (kind === "wait" && /^\s*0+(\.0*)?\s*(ms|s|m)?\s*$/.test(text)) return 0;
      try {
        return parseDuration(text);
      } catch (error) {
        throw new UsageError(`${from} ${JSON.stringify(text)} is not a duration; give milliseconds (5000) or a number with ms, s or m (30s, 2m)`, { cause: error });
      }
  }
}

/** Where each flag's value goes in `GatewayOptions`. */
const OPTION_OF: Record<Exclude<FlagName, "env-allow">, string> = {
  listen: "listen",
  path: "path",
  "pool-min": "poolMin",
  "pool-max": "poolMax",
  "recycle-after": "recycleAfter",
  "pool-idle": "poolIdleMs",
  legacy: "legacy",
  "allowed-hosts": "allowedHosts",
  "allowed-origins": "allowedOrigins",
  "token-file": "tokenFile",
  "admin-listen": "adminListen",
  "drain-delay": "drainDelayMs",
  "drain-ms": "drainMs",
  "max-body-bytes": "maxBodyBytes",
  "max-requests": "maxRequests",
  "max-queue": "maxQueue",
  "max-sessions": "maxSessions",
  "max-sessions-per-principal": "maxSessionsPerPrincipal",
  "max-listen-streams": "maxListenStreams",
  "request-timeout": "requestTimeoutMs",
  "session-idle": "sessionIdleMs",
  "max-stored-events": "maxStoredEvents",
  "child-max-message-bytes": "childLimits.maxMessageBytes",
  "child-read-timeout": "childLimits.readTimeoutMs",
  "child-max-in-flight": "childLimits.maxInFlight",
  "child-stderr": "childStderr",
};

function assign(options: Record<string, unknown>, flag: Exclude<FlagName, "env-allow">, value: unknown): void {
  const [key, inner] = OPTION_OF[flag].split(".") as [string, string | undefined];
  if (inner === undefined) {
    options[key] = value;
    return;
  }
  const nested = (options[key] ??= {}) as Record<string, unknown>;
  nested[inner] = value;
}

/** A command line as the target object, so that `envAllow` can sit beside it. */
function targetOf(text: string): { command: string; args: string[] } {
  // The split is the gateway's own (createGateway checks it again); a bad line is a usage error here.
  let words: string[];
  try {
    words = splitWords(text);
  } catch (error) {
    throw new UsageError((error as Error).message, { cause: error });
  }
  const [command, ...args] = words;
  if (command === undefined) throw new UsageError("the target holds no command");
  return { command, args };
}
