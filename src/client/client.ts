/**
 * The MCP conversation over one session: the handshake, typed methods with validated results,
 * pagination, the handlers for server-to-client requests, and listeners for server notifications.
 */
import { createRequire } from "node:module";
import type { z } from "zod";
import { McpTransportError, asMcpTransportError } from "../errors.js";
import { Method, Notification } from "../protocol/methods.js";
import type { DiscoverResult } from "../protocol/modern.js";
import { loadSchemas, schemas, type Schemas } from "../protocol/schema-registry.js";
import type {
  CallToolResult,
  CompleteResult,
  GetPromptResult,
  Implementation,
  ListPromptsResult,
  ListResourceTemplatesResult,
  ListResourcesResult,
  ListToolsResult,
  LoggingLevel,
  LoggingMessageParams,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  ServerCapabilities,
  Tool,
} from "../protocol/schemas.js";
import { abortReason, delay, raceAbort } from "../util/abort.js";
import type { ConnectionEnding, McpTransport } from "../transport/transport.js";
import { TransportSession, type RequestOptions, type SessionOptions } from "../session/session.js";
import type { EraName, ProtocolEra } from "./era.js";
import { DEFAULT_PROBE_TIMEOUT_MS, negotiateEra, type ProtocolChoice } from "./era-negotiation.js";
import { capabilitiesFor, installHandlers, type ClientCapabilities, type ClientHandlers } from "./handlers.js";
import { ModernEra } from "./modern-era.js";
import { Subscriptions, type SubscriptionFilter } from "./subscriptions.js";
import { reconnectDelay, resolveReconnect, type ReconnectOptions, type ReconnectPolicy } from "./reconnect.js";
import { parseResult } from "./validate.js";
import { LIMIT_NAMES } from "../transport/limits.js";
import { didYouMean, firstUnknownKey } from "../util/option-names.js";
import { checkWholeNumber } from "../util/whole-number.js";

const packageJson = createRequire(import.meta.url)("../../package.json") as { version: string };

export interface ClientOptions extends SessionOptions {
  /** How the client introduces itself. @default { name: "mcpwire", version: <this package's version> } */
  clientInfo?: Implementation;
  /** Answers to server-to-client requests; the capabilities declared follow them. */
  handlers?: ClientHandlers;
  /** Capabilities declared on top of those the handlers imply (e.g. `experimental`). */
  capabilities?: ClientCapabilities;
  /**
   * Which protocol to speak: `"auto"` finds out which era the server speaks (legacy, with the
   * `initialize` handshake, or modern, revision 2026-07-28), `"legacy"` or `"modern"` skips the
   * probe, and a revision such as `"2025-06-18"` pins it. @default "auto"
   */
  protocolVersion?: ProtocolChoice;
  /**
   * The era this server was found to speak before (e.g. `client.era` saved from a previous run):
   * skips the probe; if it proves wrong, the client probes again. @default what this process
   * found for the same server, if anything
   */
  era?: EraName;
  /**
   * stdio and other single-stream wires: how long the era probe (`server/discover`) waits before
   * `initialize` is tried beside it, in ms. @default 3_000
   */
  probeTimeoutMs?: number;
  /** Modern era: the most rounds of server questions one request may take. @default 8 */
  maxInputRounds?: number;
  /** The most pages a list method follows before it fails with PROTOCOL. @default 100 */
  maxPages?: number;
  /** Aborts connecting (opening and handshake); the whole is also bounded by `timeoutMs`. */
  signal?: AbortSignal;
  /**
   * Opt-in: when the connection drops, open the transport again and run the handshake again,
   * with exponential backoff and jitter (1 s doubling, capped at 60 s, 5 attempts by default).
   * Requests pending at the drop fail with DISCONNECTED; requests made while reconnecting wait
   * for it within their own `timeoutMs`. @default false
   */
  reconnect?: boolean | ReconnectOptions;
}

/** Every option `McpClient` takes, the session's four ceilings among them. */
export const CLIENT_OPTION_NAMES = [
  "clientInfo",
  "handlers",
  "capabilities",
  "protocolVersion",
  "era",
  "probeTimeoutMs",
  "maxInputRounds",
  "maxPages",
  "signal",
  "reconnect",
  ...LIMIT_NAMES,
] as const satisfies readonly (keyof ClientOptions)[];

// A key added to ClientOptions but not to the list above would be refused at run time; this fails the build instead.
const everyClientOptionListed: Exclude<keyof ClientOptions, (typeof CLIENT_OPTION_NAMES)[number]> extends never ? true : never = true;
void everyClientOptionListed;

/** Options of every typed method: the deadline, the abort signal, progress. */
export type CallOptions = Omit<RequestOptions, "label">;

export interface PageOptions extends CallOptions {
  cursor?: string;
}

export const DEFAULT_MAX_PAGES = 100;

/** The schemas a typed method validates its result with, by name (see schema-registry.ts). */
type ResultSchemaName = {
  [K in keyof Schemas]: K extends `${string}ResultSchema` ? K : never;
}[keyof Schemas];

interface ListenerRegistration {
  method: string;
  listener: (params: Record<string, unknown>) => void;
  /** Stops the listener on the session it is currently registered with. */
  stop: () => void;
}

export class McpClient {
  private current: TransportSession;
  private protocol: ProtocolEra | undefined;
  /** While the era is being settled, sessions opened and closed by the probe are not the client's end. */
  private negotiating = false;
  private readonly subscriptions = new Subscriptions();
  private reconnection: Promise<void> | undefined;
  private readonly maxPages: number;
  private readonly reconnectPolicy: ReconnectPolicy | undefined;
  private readonly registrations = new Set<ListenerRegistration>();
  /** Aborted by close(): stops a reconnection in progress. */
  private readonly closing = new AbortController();
  private markEnded!: (ending: ConnectionEnding) => void;
  private readonly finalEnding: Promise<ConnectionEnding> = new Promise((resolve) => (this.markEnded = resolve));

  /**
   * A client over a session that is not yet open; `connect()` (below) or `McpClient.connect`
   * open and initialize it. Most code wants the package's `connect(target)`.
   */
  constructor(
    session: TransportSession,
    private readonly options: ClientOptions = {},
  ) {
    checkClientOptionNames(options);
    this.maxPages = checkMaxPages(options.maxPages);
    this.reconnectPolicy = resolveReconnect(options.reconnect);
    this.current = session;
    this.attach(session);
  }

  /** The session of the current connection (a new one after each reconnection). */
  get session(): TransportSession {
    return this.current;
  }

  /** Opens a transport and runs the handshake; nothing is left running when it fails. */
  static async connect(transport: McpTransport, options: ClientOptions = {}): Promise<McpClient> {
    const client = new McpClient(new TransportSession(transport, options), options);
    await client.connect();
    return client;
  }

  /**
   * Opens the connection and settles the protocol (the era probe, then the handshake or
   * discovery), all within `timeoutMs` and `signal`. On any failure everything opened is closed
   * before the error is thrown.
   */
  async connect(): Promise<void> {
    const first = this.current;
    const timeoutMs = first.limits.timeoutMs;
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = this.options.signal ? AbortSignal.any([this.options.signal, deadline]) : deadline;
    this.negotiating = true;
    try {
      await loadSchemas();
      await this.negotiate(signal, this.options.era, first);
    } catch (error) {
      await first.close();
      this.markEnded({ error: error instanceof McpTransportError ? error : undefined });
      if (deadline.aborted && !this.options.signal?.aborted) {
        throw new McpTransportError("TIMEOUT", `connecting timed out after ${timeoutMs} ms (${first.description})`, {
          timeoutMs,
          cause: error,
        });
      }
      if (signal.aborted) throw abortReason(signal);
      throw error;
    } finally {
      this.negotiating = false;
    }
    // The connection may have ended between the era being settled and now.
    if (!this.current.isOpen) this.onSessionEnd(this.current, await this.current.ended);
  }

  /** Settles the era on a session (the given one first, new ones if the probe needs them). */
  private async negotiate(signal: AbortSignal, hint: EraName | undefined, first?: TransportSession): Promise<void> {
    let unused = first;
    const transport = this.current.transport;
    const limits = this.current.limits;
    const capabilities = capabilitiesFor(this.options.handlers ?? {}, this.options.capabilities);
    const clientInfo = this.options.clientInfo ?? { name: "mcpwire", version: packageJson.version };
    const { session, era } = await negotiateEra({
      server: transport.description,
      http: transport.kind === "streamable-http",
      // A transport that knows its server's era (a scripted one, the legacy HTTP+SSE transport)
      // settles it; otherwise the client finds out, starting from what it was told or remembers.
      choice: this.options.protocolVersion ?? transport.era ?? "auto",
      hint,
      probeTimeoutMs: checkProbeTimeout(this.options.probeTimeoutMs),
      timeoutMs: limits.timeoutMs,
      signal,
      openSession: async () => {
        const session = unused ?? new TransportSession(transport, limits);
        unused = undefined;
        if (session !== first) this.attach(session);
        await session.open({ signal });
        return session;
      },
      legacy: { clientInfo, capabilities, timeoutMs: limits.timeoutMs },
      modern: {
        clientInfo,
        capabilities,
        handlers: this.options.handlers ?? {},
        mirrorsHeaders: transport.kind === "streamable-http",
        server: transport.description,
        maxInputRounds: this.options.maxInputRounds,
      },
    });
    this.protocol = era;
    this.current = session;
  }

  /** The kind of wire this client reached its server over ("stdio", "streamable-http", ...). */
  get transportKind(): string {
    return this.current.wireKind;
  }

  /** The protocol revision in use with the server. */
  get protocolVersion(): string {
    return this.ready().protocolVersion;
  }

  /** `"legacy"` (revisions up to 2025-11-25, with a handshake) or `"modern"` (2026-07-28). */
  get era(): EraName {
    return this.ready().name;
  }

  /** The modern era's `server/discover` result (supported revisions, capabilities, identity). */
  get discovery(): DiscoverResult | undefined {
    const era = this.ready();
    return era instanceof ModernEra ? era.discovered : undefined;
  }

  get serverInfo(): Implementation {
    return this.ready().serverInfo;
  }

  get serverCapabilities(): ServerCapabilities {
    return this.ready().serverCapabilities;
  }

  get instructions(): string | undefined {
    return this.ready().instructions;
  }

  /** Settles with how the client's connection finally ended (after any reconnection attempts). */
  get ended(): Promise<ConnectionEnding> {
    return this.finalEnding;
  }

  // --- Tools

  /** Every tool, following `nextCursor` to the end. */
  async listTools(options: CallOptions = {}): Promise<Tool[]> {
    return this.collect((page) => this.listToolsPage(page), "tools", options);
  }

  /** One page of tools. */
  listToolsPage(options: PageOptions = {}): Promise<ListToolsResult> {
    return this.call(Method.toolsList, cursorParams(options), "ListToolsResultSchema", "listTools", options);
  }

  /**
   * Calls a tool. A result with `isError: true` is the tool's own failure and is returned, not
   * thrown: it is an answer the caller (or an agent) can read.
   */
  callTool(name: string, args: Record<string, unknown> = {}, options: CallOptions = {}): Promise<CallToolResult> {
    return this.call(Method.toolsCall, { name, arguments: args }, "CallToolResultSchema", `callTool ${quote(name)}`, options);
  }

  // --- Resources

  async listResources(options: CallOptions = {}): Promise<Resource[]> {
    return this.collect((page) => this.listResourcesPage(page), "resources", options);
  }

  listResourcesPage(options: PageOptions = {}): Promise<ListResourcesResult> {
    return this.call(Method.resourcesList, cursorParams(options), "ListResourcesResultSchema", "listResources", options);
  }

  async listResourceTemplates(options: CallOptions = {}): Promise<ResourceTemplate[]> {
    return this.collect((page) => this.listResourceTemplatesPage(page), "resourceTemplates", options);
  }

  listResourceTemplatesPage(options: PageOptions = {}): Promise<ListResourceTemplatesResult> {
    return this.call(
      Method.resourcesTemplatesList,
      cursorParams(options),
      "ListResourceTemplatesResultSchema",
      "listResourceTemplates",
      options,
    );
  }

  readResource(uri: string, options: CallOptions = {}): Promise<ReadResourceResult> {
    return this.call(Method.resourcesRead, { uri }, "ReadResourceResultSchema", `readResource ${quote(uri)}`, options);
  }

  async subscribeResource(uri: string, options: CallOptions = {}): Promise<void> {
    await this.call(Method.resourcesSubscribe, { uri }, "EmptyResultSchema", `subscribeResource ${quote(uri)}`, options);
  }

  async unsubscribeResource(uri: string, options: CallOptions = {}): Promise<void> {
    await this.call(Method.resourcesUnsubscribe, { uri }, "EmptyResultSchema", `unsubscribeResource ${quote(uri)}`, options);
  }

  // --- Prompts

  async listPrompts(options: CallOptions = {}): Promise<Prompt[]> {
    return this.collect((page) => this.listPromptsPage(page), "prompts", options);
  }

  listPromptsPage(options: PageOptions = {}): Promise<ListPromptsResult> {
    return this.call(Method.promptsList, cursorParams(options), "ListPromptsResultSchema", "listPrompts", options);
  }

  getPrompt(name: string, args: Record<string, string> = {}, options: CallOptions = {}): Promise<GetPromptResult> {
    return this.call(Method.promptsGet, { name, arguments: args }, "GetPromptResultSchema", `getPrompt ${quote(name)}`, options);
  }

  // --- Completion, logging, ping

  /**
   * Asks for completions of one argument of a prompt (`{ type: "ref/prompt", name }`) or of a
   * resource template (`{ type: "ref/resource", uri }`).
   */
  complete(
    ref: { type: "ref/prompt"; name: string } | { type: "ref/resource"; uri: string },
    argument: { name: string; value: string },
    options: CallOptions & { context?: { arguments?: Record<string, string> } } = {},
  ): Promise<CompleteResult> {
    const { context, ...callOptions } = options;
    const params: Record<string, unknown> = { ref, argument };
    if (context) params.context = context;
    return this.call(Method.completionComplete, params, "CompleteResultSchema", "complete", callOptions);
  }

  /**
   * Asks the server for log messages of `level` and above. In the modern era there is no such
   * request: the level then travels in the `_meta` of every later request instead.
   */
  async setLoggingLevel(level: LoggingLevel, options: CallOptions = {}): Promise<void> {
    const era = this.ready();
    if (era instanceof ModernEra) {
      era.setLogLevel(level);
      return;
    }
    await this.call(Method.loggingSetLevel, { level }, "EmptyResultSchema", "setLoggingLevel", options);
  }

  async ping(options: CallOptions = {}): Promise<void> {
    await this.call(Method.ping, undefined, "EmptyResultSchema", "ping", options);
  }

  // --- Notifications from the server

  /** Any server notification by method; returns the function that stops listening. */
  onNotification(method: string, listener: (params: Record<string, unknown>) => void): () => void {
    const registration: ListenerRegistration = { method, listener, stop: this.current.onNotification(method, listener) };
    this.registrations.add(registration);
    return () => {
      registration.stop();
      this.registrations.delete(registration);
    };
  }

  onToolsListChanged(listener: () => void): () => void {
    return this.onNotification(Notification.toolsListChanged, () => listener());
  }

  onResourcesListChanged(listener: () => void): () => void {
    return this.onNotification(Notification.resourcesListChanged, () => listener());
  }

  onPromptsListChanged(listener: () => void): () => void {
    return this.onNotification(Notification.promptsListChanged, () => listener());
  }

  /** `notifications/resources/updated` for a subscribed resource; malformed notices are dropped. */
  onResourceUpdated(listener: (update: { uri: string }) => void): () => void {
    return this.onNotification(Notification.resourceUpdated, (params) => {
      const parsed = schemas().ResourceUpdatedParamsSchema.safeParse(params);
      if (parsed.success) listener(parsed.data);
    });
  }

  /** `notifications/message` log entries; malformed entries are dropped. */
  onLoggingMessage(listener: (entry: LoggingMessageParams) => void): () => void {
    return this.onNotification(Notification.message, (params) => {
      const parsed = schemas().LoggingMessageParamsSchema.safeParse(params);
      if (parsed.success) listener(parsed.data);
    });
  }

  /** Any progress notification, whether or not a request asked for it with `onProgress`. */
  onProgress(listener: (params: Record<string, unknown>) => void): () => void {
    return this.onNotification(Notification.progress, listener);
  }

  /**
   * Asks for change notifications, in either era: modern servers get a long-lived
   * `subscriptions/listen` stream with this filter (widened by each call; resolves once the
   * server acknowledges, with the part it agreed to), legacy servers a `resources/subscribe` per
   * URI (list changes need no request there). The notifications reach `onToolsListChanged`,
   * `onResourceUpdated` and the other listeners. The stream is opened again after a reconnection.
   */
  async listen(filter: SubscriptionFilter, options: { timeoutMs?: number } = {}): Promise<SubscriptionFilter> {
    return this.subscriptions.listen(this.current, this.ready(), filter, options.timeoutMs ?? this.current.limits.timeoutMs);
  }

  /** Tells the server that the roots changed (the `roots` handler will be asked again). */
  async notifyRootsListChanged(): Promise<void> {
    this.ready().checkMethod(Notification.rootsListChanged, "notifyRootsListChanged");
    await this.current.notify(Notification.rootsListChanged);
  }

  // --- Ending

  /** Closes the connection and releases everything it holds. Idempotent. */
  async close(): Promise<void> {
    this.closing.abort();
    this.subscriptions.stop();
    await this.reconnection?.catch(() => {});
    await this.current.close();
    this.markEnded({});
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  private ready(): ProtocolEra {
    if (!this.protocol) throw new Error("the client is not connected yet: await connect() first");
    return this.protocol;
  }

  /**
   * One typed request: checked against the era, sent, its result validated. Not an async
   * function: on the path where nothing waits for a reconnection, the era's promise is chained
   * directly, one promise and one hop less per call. Failures still arrive as rejections.
   */
  private call<K extends ResultSchemaName>(
    method: string,
    params: Record<string, unknown> | undefined,
    schema: K,
    label: string,
    options: CallOptions,
  ): Promise<z.output<Schemas[K]>> {
    try {
      const era = this.ready();
      era.checkMethod(method, label);
      if (!this.reconnection) return this.send(era, method, params, schema, label, options);
      return this.waitForReconnection(label, options).then(() => this.send(this.ready(), method, params, schema, label, options));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  private send<K extends ResultSchemaName>(
    era: ProtocolEra,
    method: string,
    params: Record<string, unknown> | undefined,
    schema: K,
    label: string,
    options: CallOptions,
  ): Promise<z.output<Schemas[K]>> {
    const session = this.current;
    return era
      .request(session, method, params, { ...options, label })
      .then((raw) => parseResult(schemas()[schema] as z.ZodType, raw, label, session.description) as z.output<Schemas[K]>);
  }

  /** Installs the handlers and the user's listeners on a session, and watches for its end. */
  private attach(session: TransportSession): void {
    installHandlers(session, this.options.handlers ?? {});
    // A list that changed is no longer fresh in the modern era's result cache.
    for (const notification of [Notification.toolsListChanged, Notification.promptsListChanged, Notification.resourcesListChanged]) {
      session.onNotification(notification, () => {
        if (this.protocol instanceof ModernEra) this.protocol.onListChanged(notification);
      });
    }
    for (const registration of this.registrations) {
      registration.stop = session.onNotification(registration.method, registration.listener);
    }
    session.onEnd((ending) => this.onSessionEnd(session, ending));
  }

  private onSessionEnd(session: TransportSession, ending: ConnectionEnding): void {
    if (session !== this.current || this.reconnection || this.negotiating) return;
    const drop = ending.error !== undefined && this.protocol !== undefined && !this.closing.signal.aborted;
    if (!drop || !this.reconnectPolicy) {
      this.markEnded(ending);
      return;
    }
    this.reconnection = this.reconnect(this.reconnectPolicy, ending).finally(() => (this.reconnection = undefined));
    // Waiters observe the outcome through the session they get; nobody may see this rejection unhandled.
    this.reconnection.catch(() => {});
  }

  /** Opens the transport again and runs the handshake, with backoff, until it works or attempts run out. */
  private async reconnect(policy: ReconnectPolicy, drop: ConnectionEnding): Promise<void> {
    let last = drop;
    for (let attempt = 0; attempt < policy.maxAttempts; attempt++) {
      try {
        await delay(reconnectDelay(policy, attempt), this.closing.signal);
      } catch {
        return; // closed by the user while waiting
      }
      const deadline = AbortSignal.timeout(this.current.limits.timeoutMs);
      const signal = AbortSignal.any([this.closing.signal, deadline]);
      const dropped = this.current;
      try {
        // The era found before is the hint: no probe unless the server changed.
        await this.negotiate(signal, this.protocol?.name);
        if (!this.current.isOpen) throw new McpTransportError("DISCONNECTED", "the connection dropped during the handshake");
        await this.subscriptions.resume(this.current, this.ready(), this.current.limits.timeoutMs).catch(() => {
          // A subscription the server no longer accepts is not a failed reconnection; listen() says why.
        });
        return;
      } catch (error) {
        if (this.current !== dropped) await this.current.close();
        this.current = dropped;
        if (this.closing.signal.aborted) return;
        last = { error: asMcpTransportError(error, "UNAVAILABLE", "reconnecting failed") };
      }
    }
    this.markEnded(last);
  }

  /** A request made while reconnecting waits for it, within its own deadline and signal. */
  private async waitForReconnection(label: string, options: CallOptions): Promise<void> {
    const timeoutMs = options.timeoutMs ?? this.current.limits.timeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new McpTransportError("TIMEOUT", `${label} timed out after ${timeoutMs} ms while reconnecting (${this.current.description})`, { timeoutMs })),
        timeoutMs,
      );
    });
    try {
      await raceAbort(Promise.race([this.reconnection, deadline]), options.signal);
    } finally {
      clearTimeout(timer);
    }
  }

  private async collect<K extends string, Item>(
    page: (options: PageOptions) => Promise<{ [key in K]: Item[] } & { nextCursor?: string }>,
    key: K,
    options: CallOptions,
  ): Promise<Item[]> {
    const items: Item[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let pages = 0; pages < this.maxPages; pages++) {
      const result = await page({ ...options, cursor });
      items.push(...result[key]);
      cursor = result.nextCursor;
      if (cursor === undefined) return items;
      // A cursor seen before would loop forever; fail closed rather than return a partial list.
      if (seen.has(cursor)) break;
      seen.add(cursor);
    }
    throw new McpTransportError(
      "PROTOCOL",
      `listing ${key} did not end within ${this.maxPages} pages (maxPages) or repeated a cursor (${this.current.description})`,
      { kind: "page_limit" },
    );
  }
}

function cursorParams(options: PageOptions): Record<string, unknown> | undefined {
  return options.cursor === undefined ? undefined : { cursor: options.cursor };
}

function quote(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 77)}...` : text);
}

function checkClientOptionNames(options: ClientOptions): void {
  if (typeof options !== "object" || options === null) throw new TypeError("McpClient: options must be an object");
  const unknown = firstUnknownKey(options, CLIENT_OPTION_NAMES);
  if (unknown === undefined) return;
  throw new TypeError(
    `McpClient: unknown option "${unknown}"${didYouMean(unknown, CLIENT_OPTION_NAMES)}; the options are ${CLIENT_OPTION_NAMES.join(", ")}` +
      " (options of a transport, such as keepAlive or env, go to connect() or to the transport's constructor)",
  );
}

function checkProbeTimeout(value: unknown): number {
  return value === undefined ? DEFAULT_PROBE_TIMEOUT_MS : checkWholeNumber(value, "probeTimeoutMs", "options", { min: 1, defaultValue: DEFAULT_PROBE_TIMEOUT_MS });
}

function checkMaxPages(value: unknown): number {
  return value === undefined ? DEFAULT_MAX_PAGES : checkWholeNumber(value, "maxPages", "options", { min: 1, defaultValue: DEFAULT_MAX_PAGES });
}
