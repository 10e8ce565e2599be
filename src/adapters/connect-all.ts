/**
 * `connectAll(config)`: every server of an `mcpServers` file at once, as an agent host needs them.
 *
 * Servers are connected concurrently, each within its own ceilings (its `timeoutMs` bounds its
 * start and handshake), so one slow or broken server neither delays nor stops the others: it is
 * reported by name with its error. Tools of all servers are listed under names prefixed by the
 * server's name, unique across servers; one `close()` closes every connection.
 */
import { badToolCall } from "../client/call-arguments.js";
import { checkCallOptions, checkSignalOption } from "../client/call-option-names.js";
import { CLIENT_OPTION_NAMES, McpClient, type ClientOptions, type CallOptions } from "../client/client.js";
import { readServersFile, type ServersFile } from "../config/mcp-servers-file.js";
import type { McpServerConfig } from "../config/server-config.js";
import { transportFor } from "../config/transport-for.js";
import { McpTransportError } from "../errors.js";
import { LIMIT_NAMES, checkLimit, resolveLimits, type Limits } from "../transport/limits.js";
import type { McpTransport } from "../transport/transport.js";
import type { CallToolResult } from "../protocol/schemas.js";
import { didYouMean, firstUnknownKey } from "../util/option-names.js";
import { describeValue } from "../util/whole-number.js";
import {
  LAYERED_SETTING_NAMES,
  TOOL_CALL_SETTING_NAMES,
  checkLayeredSettings,
  checkSettingNames,
  callOptionsFor,
  checkToolCallSettings,
  settingsForServer,
  type LayeredToolCallSettings,
  type ToolCallSettings,
} from "./tool-call-settings.js";
import { checkSeparator, nameServerTools, type ServerTool, type ServerToolList, type ToolNamingOptions } from "./tool-naming.js";

export interface ConnectAllOptions {
  /**
   * What every client is given (`clientInfo`, `handlers`, `capabilities`, `reconnect`, default
   * ceilings). A server's own ceilings, from its declaration, win over the ones given here.
   */
  client?: Omit<ClientOptions, "signal">;
  /** Aborts connecting: servers already connected are closed, and `connectAll` rejects with `signal.reason`. */
  signal?: AbortSignal;
  /** The environment `${NAME}` in a file read from `config` expands from. @default process.env */
  env?: Record<string, string | undefined>;
  /** How a declaration becomes a transport (to wrap or record one, say). @default transportFor */
  transportFor?: (config: McpServerConfig) => McpTransport;
  /**
   * How tool calls run, for every server and per server by name (`servers`): `timeoutMs`,
   * `resetTimeoutOnProgress`, `maxTotalTimeoutMs`, `onProgress`. The tools of `listTools()` carry
   * them into the agent adapters, whose own options and a call's own options go over them.
   */
  calls?: LayeredToolCallSettings;
}

/** Every option `connectAll` takes; any other key is refused. */
const CONNECT_ALL_OPTION_NAMES = ["client", "signal", "env", "transportFor", "calls"] as const satisfies readonly (keyof ConnectAllOptions)[];

/** What `options.client` takes: the client's options but `signal`, which is `connectAll`'s own. */
const SHARED_CLIENT_OPTION_NAMES: readonly string[] = CLIENT_OPTION_NAMES.filter((name) => name !== "signal");

export interface ListAllToolsOptions extends ToolNamingOptions, Pick<CallOptions, "signal" | "timeoutMs"> {
  /** Put each server's name before its tools' names. @default true */
  prefix?: boolean;
}

/** Every option `servers.callTool()` takes; any other key is refused. */
const SERVERS_CALL_TOOL_OPTION_NAMES: ReadonlySet<string> = new Set([...TOOL_CALL_SETTING_NAMES, "signal"]);

/** Every option `servers.listTools()` takes; any other key is refused. */
const LIST_ALL_TOOLS_OPTION_NAMES = ["prefix", "separator", "signal", "timeoutMs"] as const satisfies readonly (keyof ListAllToolsOptions)[];

/** The tools of every connected server, and the servers whose tools could not be listed. */
export interface AllTools {
  /** In the order of the file, then of each server's list. */
  tools: ServerTool[];
  /** By server name: why its tools are missing from `tools`. */
  failures: Record<string, McpTransportError>;
}

export interface ConnectedServers extends AsyncDisposable {
  /** Where the declarations came from (the file's path). */
  readonly source: string;
  /** The servers that are connected, by name, in the order of the file. */
  readonly clients: Readonly<Record<string, McpClient>>;
  /** The servers that could not be connected, by name, with why. */
  readonly failures: Readonly<Record<string, McpTransportError>>;
  /** The servers the file marks `disabled: true`; they were not started. */
  readonly disabled: readonly string[];
  /**
   * The tools of every connected server, under unique names prefixed by the server's name
   * (`handbook__search`). A server whose list fails is reported in `failures`; the others are listed.
   */
  listTools(options?: ListAllToolsOptions): Promise<AllTools>;
  /**
   * Calls a tool by the name `listTools()` gave it (`handbook__search`), on its server, with the
   * `calls` settings of that server under `options`. The tools must have been listed first.
   */
  callTool(name: string, args?: Record<string, unknown>, options?: ToolCallSettings & { signal?: AbortSignal }): Promise<CallToolResult>;
  /** Closes every connection, and resolves once all are released. Idempotent. */
  close(): Promise<void>;
}

/**
 * Connects to every server of an `mcpServers` file (a path, or a file already read with
 * `readServersFile` / `loadServersFile`). Resolves once each server is connected or has failed;
 * rejects only when the file cannot be read or `signal` aborts.
 */
export async function connectAll(config: string | ServersFile, options: ConnectAllOptions = {}): Promise<ConnectedServers> {
  checkConnectAllOptions(options);
  const signal = options.signal;
  if (signal?.aborted) throw abortReason(signal);
  // Ceilings given for all servers are the caller's mistake, not one server's failure: refuse them here.
  resolveLimits(options.client, "connectAll options.client");
  if (options.calls !== undefined) {
    checkLayeredSettings(options.calls, "connectAll options.calls");
    checkSettingNames(options.calls, LAYERED_SETTING_NAMES, "connectAll options.calls");
  }
  const file = typeof config === "string" ? await readServersFile(config, options.env) : checkServersFile(config);
  const makeTransport = options.transportFor ?? transportFor;
  const names = Object.keys(file.servers);
  checkCallsServerNames(options.calls, [...names, ...file.disabled], file.source);
  const outcomes = await Promise.allSettled(
    names.map((name) => connectOne(file.servers[name]!, makeTransport, options.client ?? {}, signal)),
  );

  const clients: Record<string, McpClient> = Object.create(null) as Record<string, McpClient>;
  const failures: Record<string, McpTransportError> = Object.create(null) as Record<string, McpTransportError>;
  outcomes.forEach((outcome, index) => {
    const name = names[index]!;
    if (outcome.status === "fulfilled") clients[name] = outcome.value;
    else failures[name] = asStartFailure(name, outcome.reason);
  });
  const servers = new Servers(file.source, clients, failures, [...file.disabled], options.calls);
  if (signal?.aborted) {
    await servers.close();
    throw abortReason(signal);
  }
  return servers;
}

async function connectOne(
  config: McpServerConfig,
  makeTransport: (config: McpServerConfig) => McpTransport,
  clientOptions: Omit<ClientOptions, "signal">,
  signal: AbortSignal | undefined,
): Promise<McpClient> {
  // transportFor throws for a declaration it cannot serve; that is this server's failure only.
  const transport = makeTransport(config);
  return McpClient.connect(transport, { ...clientOptions, ...limitsOf(config), signal });
}

/** The ceilings a declaration sets, and only those, so the defaults given for all stay in force. */
function limitsOf(config: McpServerConfig): Partial<Limits> {
  const limits: Partial<Limits> = {};
  for (const name of LIMIT_NAMES) {
    if (config[name] !== undefined) limits[name] = config[name];
  }
  return limits;
}

/** Any failure to start, as an `McpTransportError` that names the server when it did not. */
function asStartFailure(name: string, error: unknown): McpTransportError {
  if (error instanceof McpTransportError) return error;
  const why = error instanceof Error ? `: ${error.message}` : "";
  return new McpTransportError("UNAVAILABLE", `server "${name}" could not be started${why}`, { cause: error });
}

/**
 * Refuses a key nobody reads, here, before any server starts: given to each client, an unknown
 * `client` key would fail every server as if it could not start, and an unknown top-level key
 * would be dropped.
 */
function checkConnectAllOptions(options: ConnectAllOptions): void {
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new TypeError("connectAll(): options must be an object");
  }
  const unknown = firstUnknownKey(options, CONNECT_ALL_OPTION_NAMES);
  if (unknown !== undefined) {
    throw new TypeError(
      `connectAll(): unknown option "${unknown}"${didYouMean(unknown, CONNECT_ALL_OPTION_NAMES)}; the options are ${CONNECT_ALL_OPTION_NAMES.join(", ")}` +
        (SHARED_CLIENT_OPTION_NAMES.includes(unknown) ? ` (client options such as "${unknown}" go in options.client)` : ""),
    );
  }
  // A bad value of these would reach every server and be reported as each one's failure to start.
  checkSignalOption(options.signal, "connectAll()");
  if (options.transportFor !== undefined && typeof options.transportFor !== "function") {
    throw new TypeError(`connectAll(): "transportFor" must be a function from a declaration to a transport, got ${describeValue(options.transportFor)}`);
  }
  const env: unknown = options.env;
  if (env !== undefined && (typeof env !== "object" || env === null || Array.isArray(env))) {
    throw new TypeError(`connectAll(): "env" must be an object of variables by name (as process.env), got ${describeValue(env)}`);
  }
  const client: unknown = options.client;
  if (client === undefined) return;
  if (typeof client !== "object" || client === null || Array.isArray(client)) {
    throw new TypeError("connectAll(): options.client must be an object of client options");
  }
  if ("signal" in client) {
    throw new TypeError('connectAll(): options.client cannot take "signal"; give it as connectAll\'s own options.signal');
  }
  const unknownClientKey = firstUnknownKey(client, SHARED_CLIENT_OPTION_NAMES);
  if (unknownClientKey !== undefined) {
    throw new TypeError(
      `connectAll(): options.client has an unknown option "${unknownClientKey}"${didYouMean(unknownClientKey, SHARED_CLIENT_OPTION_NAMES)}; ` +
        `the options are ${SHARED_CLIENT_OPTION_NAMES.join(", ")} (a server's transport options go in its declaration)`,
    );
  }
}

/**
 * Refuses settings for a server the file does not declare: a misspelt name (`handbok`) would
 * leave that server's calls under the general settings without a word.
 */
function checkCallsServerNames(calls: LayeredToolCallSettings | undefined, declared: readonly string[], source: string): void {
  if (calls?.servers === undefined) return;
  for (const name of Object.keys(calls.servers)) {
    if (!declared.includes(name)) {
      throw new TypeError(
        `connectAll options.calls: servers["${name}"] names no server of ${source}${didYouMean(name, declared)}; its servers are ${declared.join(", ") || "none"}`,
      );
    }
  }
}

/** Refuses a key `listTools()` does not read, as `connectAll` does its own: a typo (`prefx`) would be dropped. */
function checkListAllToolsOptions(options: ListAllToolsOptions): void {
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new TypeError("servers.listTools(): options must be an object");
  }
  const unknown = firstUnknownKey(options, LIST_ALL_TOOLS_OPTION_NAMES);
  if (unknown !== undefined) {
    throw new TypeError(
      `servers.listTools(): unknown option "${unknown}"${didYouMean(unknown, LIST_ALL_TOOLS_OPTION_NAMES)}; ` +
        `the options are ${LIST_ALL_TOOLS_OPTION_NAMES.join(", ")}`,
    );
  }
  // Checked here, before any listing: each client would refuse a bad value itself, and that
  // refusal would come back as every server's failure to list, not as the caller's mistake.
  if (options.prefix !== undefined && typeof options.prefix !== "boolean") {
    throw new TypeError(`servers.listTools(): "prefix" must be true (each server's name) or false, got ${describeValue(options.prefix)}`);
  }
  checkSeparator(options.separator);
  if (options.timeoutMs !== undefined) checkLimit("timeoutMs", options.timeoutMs, "servers.listTools()");
  checkSignalOption(options.signal, "servers.listTools()");
}

function checkServersFile(value: ServersFile): ServersFile {
  if (typeof value !== "object" || value === null || typeof value.servers !== "object" || value.servers === null) {
    throw new TypeError(
      "connectAll(): expected the path of an mcpServers file, or a file read with readServersFile() or loadServersFile()",
    );
  }
  return { source: value.source ?? "servers", servers: value.servers, disabled: value.disabled ?? [] };
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("This operation was aborted", "AbortError");
}

class Servers implements ConnectedServers {
  private closing: Promise<void> | undefined;
  /** The tools of the latest `listTools()`, by the names it gave them. */
  private listed = new Map<string, ServerTool>();

  constructor(
    readonly source: string,
    readonly clients: Readonly<Record<string, McpClient>>,
    readonly failures: Readonly<Record<string, McpTransportError>>,
    readonly disabled: readonly string[],
    private readonly calls: LayeredToolCallSettings | undefined,
  ) {}

  /** How the tools of `server` are called, from `connectAll`'s `calls` (the live tool sets list each server on its own). */
  callSettingsFor(server: string): ToolCallSettings {
    return settingsForServer(this.calls, server);
  }

  async listTools(options: ListAllToolsOptions = {}): Promise<AllTools> {
    checkListAllToolsOptions(options);
    const entries = Object.entries(this.clients);
    const call: CallOptions = { signal: options.signal, timeoutMs: options.timeoutMs };
    const outcomes = await Promise.allSettled(entries.map(([, client]) => client.listTools(call)));
    const lists: ServerToolList[] = [];
    const failures: Record<string, McpTransportError> = Object.create(null) as Record<string, McpTransportError>;
    outcomes.forEach((outcome, index) => {
      const [server, client] = entries[index]!;
      if (outcome.status === "fulfilled") lists.push({ server, client, tools: outcome.value });
      else failures[server] = asListFailure(server, outcome.reason);
    });
    if (options.signal?.aborted) throw abortReason(options.signal);
    const named = nameServerTools(lists, { prefix: options.prefix ?? true, separator: options.separator });
    const tools = named.map((tool) => ({ ...tool, call: settingsForServer(this.calls, tool.server) }));
    this.listed = new Map(tools.map((tool) => [tool.name, tool]));
    return { tools, failures };
  }

  async callTool(name: string, args: Record<string, unknown> = {}, options: ToolCallSettings & { signal?: AbortSignal } = {}): Promise<CallToolResult> {
    // A name that is not a string would reach the "did you mean" search and fail there without saying why.
    if (typeof name !== "string" || name === "") throw badToolCall("callTool()", name, args);
    const entry = this.listed.get(name);
    if (!entry) {
      const known = [...this.listed.keys()];
      throw new TypeError(
        known.length === 0
          ? `callTool(): no tool "${name}": list the tools first (servers.listTools())`
          : `callTool(): no tool "${name}"${didYouMean(name, known)} among the ${known.length} listed`,
      );
    }
    // A key nobody reads (`timeout` for `timeoutMs`) would give the call other settings than asked, without a word.
    checkCallOptions(options, SERVERS_CALL_TOOL_OPTION_NAMES, `callTool "${name}"`);
    checkToolCallSettings(options, `callTool "${name}" options`);
    return entry.client.callTool(entry.tool.name, args, callOptionsFor(entry, options, options.signal));
  }

  close(): Promise<void> {
    this.closing ??= Promise.allSettled(Object.values(this.clients).map((client) => client.close())).then(() => {});
    return this.closing;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

/** The `calls` settings of one server of `servers`, when `connectAll` made them (undefined for another implementation). */
export function callSettingsOf(servers: ConnectedServers, server: string): ToolCallSettings | undefined {
  return servers instanceof Servers ? servers.callSettingsFor(server) : undefined;
}

export function asListFailure(server: string, error: unknown): McpTransportError {
  if (error instanceof McpTransportError) return error;
  return new McpTransportError("PROTOCOL", `listing the tools of server "${server}" failed`, { cause: error });
}
