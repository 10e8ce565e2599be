/**
 * The command line, read with `node:util` `parseArgs`: `mcpwire <command> <target> [arguments]
 * [options]`. Options may come anywhere; everything after `--` is an argument, never an option.
 */
import type { ParseArgsConfig } from "node:util";
import type { ProtocolChoice } from "../client/era-negotiation.js";
import { LEGACY_REVISIONS, MODERN_REVISIONS } from "../protocol/revisions.js";
import { MAX_TIMER_MS } from "../util/whole-number.js";
import { parseStrictArgs } from "./strict-args.js";
import { UsageError } from "./usage.js";
import { isHeaderName } from "../util/header-syntax.js";
import { ENV_VAR_NAME_RULE, isEnvVarName } from "../transport/stdio/child-env.js";

export const COMMANDS = ["tools", "call", "resources", "read", "prompts", "prompt", "ping", "info", "login", "logout"] as const;
export type CommandName = (typeof COMMANDS)[number];

/** What each command takes after the target: its named operands, and whether more may follow. */
const OPERANDS: Record<CommandName, { names: readonly string[]; rest: boolean }> = {
  tools: { names: [], rest: false },
  call: { names: ["<tool>"], rest: true },
  resources: { names: [], rest: false },
  read: { names: ["<uri>"], rest: false },
  prompts: { names: [], rest: false },
  prompt: { names: ["<name>"], rest: true },
  ping: { names: [], rest: false },
  info: { names: [], rest: false },
  login: { names: [], rest: false },
  logout: { names: [], rest: false },
};

const OPTIONS = {
  json: { type: "boolean" },
  config: { type: "string" },
  header: { type: "string", multiple: true },
  proxy: { type: "string" },
  "no-proxy": { type: "boolean" },
  ca: { type: "string", multiple: true },
  cert: { type: "string" },
  key: { type: "string" },
  timeout: { type: "string" },
  "env-allow": { type: "string", multiple: true },
  protocol: { type: "string" },
  "no-browser": { type: "boolean" },
  "no-validate-output": { type: "boolean" },
  verbose: { type: "boolean", short: "v" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "V" },
} as const satisfies ParseArgsConfig["options"];

export interface CliOptions {
  json: boolean;
  verbose: boolean;
  configFile?: string;
  /** Parsed `--header` values, in order. */
  headers: Record<string, string>;
  timeoutMs?: number;
  /** Names from every `--env-allow`, split on commas. */
  envAllow: string[];
  protocol?: ProtocolChoice;
  /** Open the browser for a login (`--no-browser`: only print its URL). */
  browser: boolean;
  /** Check `structuredContent` against the tool's `outputSchema` (`--no-validate-output`: do not). */
  validateOutput: boolean;
  /** `--proxy`, `--no-proxy`, `--ca`, `--cert`, `--key`: only those given. */
  network: CliNetworkOptions;
}

/** The proxy and TLS options of the command line, as the transports take them (files read when connecting). */
export interface CliNetworkOptions {
  proxy?: string | false;
  ca?: { file: string }[];
  cert?: { file: string };
  key?: { file: string };
}

export type Invocation =
  | { kind: "help" }
  | { kind: "version" }
  | { kind: "command"; command: CommandName; target: string; operands: string[]; options: CliOptions };

export function parseCommandLine(argv: readonly string[]): Invocation {
  const { values, positionals } = parseStrictArgs(argv, OPTIONS);
  if (values.help) return { kind: "help" };
  if (values.version) return { kind: "version" };

  const [command, target, ...operands] = positionals;
  if (command === undefined) throw new UsageError("no command given");
  if (!isCommand(command)) {
    throw new UsageError(`unknown command ${JSON.stringify(command)}; the commands are ${COMMANDS.join(", ")}`);
  }
  if (target === undefined || target.trim() === "") {
    throw new UsageError(`${command} needs a target: a URL, a server name from a config file, or a command line in quotes`);
  }
  const shape = OPERANDS[command];
  if (operands.length < shape.names.length) {
    throw new UsageError(`${command} needs ${shape.names.slice(operands.length).join(" ")} after the target`);
  }
  if (!shape.rest && operands.length > shape.names.length) {
    const extra = operands.slice(shape.names.length);
    throw new UsageError(
      `${command} takes ${shape.names.length === 0 ? "nothing" : shape.names.join(" ")} after the target, got also ${extra.map((e) => JSON.stringify(e)).join(" ")}` +
        "; to run a command line as the server, quote it as one argument",
    );
  }

  // Only a tool's result has an output schema to check: elsewhere the flag would be dropped unread.
  if (values["no-validate-output"] === true && command !== "call") {
    throw new UsageError(`--no-validate-output applies to call (it prints a tool's structuredContent unchecked); ${command} reads no tool result`);
  }

  return {
    kind: "command",
    command,
    target: target.trim(),
    operands,
    options: {
      json: values.json ?? false,
      verbose: values.verbose ?? false,
      configFile: values.config,
      headers: parseHeaders(values.header ?? []),
      timeoutMs: values.timeout === undefined ? undefined : parseDuration(values.timeout),
      envAllow: parseEnvAllow(values["env-allow"] ?? []),
      protocol: values.protocol === undefined ? undefined : parseProtocol(values.protocol),
      browser: values["no-browser"] !== true,
      validateOutput: values["no-validate-output"] !== true,
      network: parseNetwork(values),
    },
  };
}

function isCommand(value: string): value is CommandName {
  return (COMMANDS as readonly string[]).includes(value);
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000 };

/** `5000`, `500ms`, `30s`, `2m` as milliseconds; a positive whole number of ms within Node's timer range. */
export function parseDuration(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m)?\s*$/.exec(text);
  const ms = match ? Math.round(Number(match[1]) * UNIT_MS[match[2] ?? "ms"]!) : NaN;
  if (!Number.isFinite(ms) || ms <= 0 || ms > MAX_TIMER_MS) {
    throw new UsageError(`--timeout ${JSON.stringify(text)} is not a duration; give milliseconds (5000) or a number with ms, s or m (30s, 2m)`);
  }
  return ms;
}

/**
 * `--header "Name: value"`, repeatable; a later header of the same name replaces an earlier one.
 * `--header "Name:"` with no value is refused: in curl, the model users know, `-H "Name:"`
 * removes a header rather than sending it empty, so sending `Authorization:` with nothing after
 * it would do what neither reading expects.
 */
export function parseHeaders(values: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const value of values) {
    const colon = value.indexOf(":");
    const name = colon < 0 ? "" : value.slice(0, colon).trim();
    if (!isHeaderName(name)) {
      throw new UsageError(`--header ${JSON.stringify(value)} is not "Name: value"`);
    }
    const headerValue = value.slice(colon + 1).trim();
    if (headerValue === "") {
      throw new UsageError(
        `--header ${JSON.stringify(value)}: the header ${name} has no value; write it as --header "${name}: value" (to send no ${name} header, leave the option out)`,
      );
    }
    headers[name] = headerValue;
  }
  return headers;
}

/** `--env-allow A,B --env-allow C` as [A, B, C]. */
export function parseEnvAllow(values: readonly string[]): string[] {
  const names = values.flatMap((value) => value.split(",")).map((name) => name.trim()).filter((name) => name !== "");
  const bad = names.find((name) => !isEnvVarName(name));
  if (bad !== undefined) throw new UsageError(`--env-allow: ${JSON.stringify(bad)} is not a variable name (a name is ${ENV_VAR_NAME_RULE})`);
  return names;
}

/** The proxy and TLS flags: `--proxy` or `--no-proxy`, not both; `--cert` with `--key`. */
export function parseNetwork(values: { proxy?: string; "no-proxy"?: boolean; ca?: string[]; cert?: string; key?: string }): CliNetworkOptions {
  const network: CliNetworkOptions = {};
  if (values.proxy !== undefined && values["no-proxy"] === true) throw new UsageError("--proxy and --no-proxy say opposite things; give one");
  if (values.proxy !== undefined) {
    // The value is never repeated: it may carry a password.
    if (!/^https?:\/\/[^\s]+$/i.test(values.proxy)) throw new UsageError("--proxy takes a URL, http://host:port or https://host:port");
    network.proxy = values.proxy;
  }
  if (values["no-proxy"] === true) network.proxy = false;
  const file = (flag: string, path: string): { file: string } => {
    if (path.trim() === "") throw new UsageError(`--${flag} takes the path of a PEM file`);
    return { file: path };
  };
  if (values.ca !== undefined && values.ca.length > 0) network.ca = values.ca.map((path) => file("ca", path));
  if (values.cert !== undefined) network.cert = file("cert", values.cert);
  if (values.key !== undefined) network.key = file("key", values.key);
  if ((network.cert === undefined) !== (network.key === undefined)) {
    throw new UsageError(network.cert === undefined ? "--key needs the client certificate it belongs to: give --cert too" : "--cert needs its private key: give --key too");
  }
  return network;
}

// The revisions newest first, as everywhere else they are listed.
const PROTOCOL_CHOICES: readonly string[] = ["auto", "legacy", "modern", ...MODERN_REVISIONS, ...LEGACY_REVISIONS];

export function parseProtocol(text: string): ProtocolChoice {
  if (!PROTOCOL_CHOICES.includes(text)) {
    throw new UsageError(`--protocol ${JSON.stringify(text)} is not one of ${PROTOCOL_CHOICES.join(", ")}`);
  }
  return text as ProtocolChoice;
}
