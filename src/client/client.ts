/**
 * The MCP conversation over one session: the handshake, typed methods with validated results,
 * pagination, the handlers for server-to-client requests, and listeners for server notifications.
 */
import { createRequire } from "node:module";
import type { z } from "zod";
import { McpTransportError } from "../errors.js";
import { Method, Notification } from "../protocol/methods.js";
import type { LegacyRevision } from "../protocol/revisions.js";
import {
  CallToolResultSchema,
  CompleteResultSchema,
  EmptyResultSchema,
  GetPromptResultSchema,
  ListPromptsResultSchema,
  ListResourceTemplatesResultSchema,
  ListResourcesResultSchema,
  ListToolsResultSchema,
  LoggingMessageParamsSchema,
  ReadResourceResultSchema,
  ResourceUpdatedParamsSchema,
  type CallToolResult,
  type CompleteResult,
  type GetPromptResult,
  type Implementation,
  type InitializeResult,
  type ListPromptsResult,
  type ListResourceTemplatesResult,
  type ListResourcesResult,
  type ListToolsResult,
  type LoggingLevel,
  type LoggingMessageParams,
  type Prompt,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplate,
  type ServerCapabilities,
  type Tool,
} from "../protocol/schemas.js";
import { abortReason } from "../transport/common/abort.js";
import type { ConnectionEnding, McpTransport } from "../transport/transport.js";
import { TransportSession, type RequestOptions, type SessionOptions } from "../session/session.js";
import { capabilitiesFor, installHandlers, type ClientCapabilities, type ClientHandlers } from "./handlers.js";
import { initializeLegacy } from "./legacy-handshake.js";
import { parseResult } from "./validate.js";

const packageJson = createRequire(import.meta.url)("../../package.json") as { version: string };

export interface ClientOptions extends SessionOptions {
  /** How the client introduces itself. @default { name: "mcpwire", version: <this package's version> } */
  clientInfo?: Implementation;
  /** Answers to server-to-client requests; the capabilities declared follow them. */
  handlers?: ClientHandlers;
  /** Capabilities declared on top of those the handlers imply (e.g. `experimental`). */
  capabilities?: ClientCapabilities;
  /** The revision to offer in `initialize`. @default the newest mcpwire speaks */
  protocolVersion?: LegacyRevision;
  /** The most pages a list method follows before it fails with PROTOCOL. @default 100 */
  maxPages?: number;
  /** Aborts connecting (opening and handshake); the whole is also bounded by `timeoutMs`. */
  signal?: AbortSignal;
}

/** Options of every typed method: the deadline, the abort signal, progress. */
export type CallOptions = Omit<RequestOptions, "label">;

export interface PageOptions extends CallOptions {
  cursor?: string;
}

export const DEFAULT_MAX_PAGES = 100;

export class McpClient {
  private handshakeResult: InitializeResult | undefined;
  private revision: LegacyRevision | undefined;
  private renewal: Promise<void> | undefined;
  private readonly maxPages: number;

  /**
   * A client over a session that is not yet open; `connect()` (below) or `McpClient.connect`
   * open and initialize it. Most code wants the package's `connect(target)`.
   */
  constructor(
    readonly session: TransportSession,
    private readonly options: ClientOptions = {},
  ) {
    this.maxPages = checkMaxPages(options.maxPages);
    installHandlers(session, options.handlers ?? {});
  }

  /** Opens a transport and runs the handshake; nothing is left running when it fails. */
  static async connect(transport: McpTransport, options: ClientOptions = {}): Promise<McpClient> {
    const client = new McpClient(new TransportSession(transport, options), options);
    await client.connect();
    return client;
  }

  /**
   * Opens the session and runs the handshake, both within `timeoutMs` and `signal`.
   * On any failure the connection is closed before the error is thrown.
   */
  async connect(): Promise<void> {
    const timeoutMs = this.session.limits.timeoutMs;
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = this.options.signal ? AbortSignal.any([this.options.signal, deadline]) : deadline;
    try {
      await this.session.open({ signal });
      await this.handshake(signal);
    } catch (error) {
      await this.session.close();
      if (deadline.aborted && !this.options.signal?.aborted) {
        throw new McpTransportError("TIMEOUT", `connecting timed out after ${timeoutMs} ms (${this.session.description})`, {
          timeoutMs,
          cause: error,
        });
      }
      if (signal.aborted) throw abortReason(signal);
      throw error;
    }
  }

  /** The kind of wire this client reached its server over ("stdio", "streamable-http", ...). */
  get transportKind(): string {
    return this.session.transport.kind;
  }

  /** The protocol revision agreed with the server. */
  get protocolVersion(): LegacyRevision {
    this.ready();
    return this.revision!;
  }

  get serverInfo(): Implementation {
    return this.ready().serverInfo;
  }

  get serverCapabilities(): ServerCapabilities {
    return this.ready().capabilities;
  }

  get instructions(): string | undefined {
    return this.ready().instructions;
  }

  /** Settles with how the connection ended. */
  get ended(): Promise<ConnectionEnding> {
    return this.session.ended;
  }

  // --- Tools

  /** Every tool, following `nextCursor` to the end. */
  async listTools(options: CallOptions = {}): Promise<Tool[]> {
    return this.collect((page) => this.listToolsPage(page), "tools", options);
  }

  /** One page of tools. */
  listToolsPage(options: PageOptions = {}): Promise<ListToolsResult> {
    return this.call(Method.toolsList, cursorParams(options), ListToolsResultSchema, "listTools", options);
  }

  /**
   * Calls a tool. A result with `isError: true` is the tool's own failure and is returned, not
   * thrown: it is an answer the caller (or an agent) can read.
   */
  callTool(name: string, args: Record<string, unknown> = {}, options: CallOptions = {}): Promise<CallToolResult> {
    return this.call(Method.toolsCall, { name, arguments: args }, CallToolResultSchema, `callTool ${quote(name)}`, options);
  }

  // --- Resources

  async listResources(options: CallOptions = {}): Promise<Resource[]> {
    return this.collect((page) => this.listResourcesPage(page), "resources", options);
  }

  listResourcesPage(options: PageOptions = {}): Promise<ListResourcesResult> {
    return this.call(Method.resourcesList, cursorParams(options), ListResourcesResultSchema, "listResources", options);
  }

  async listResourceTemplates(options: CallOptions = {}): Promise<ResourceTemplate[]> {
    return this.collect((page) => this.listResourceTemplatesPage(page), "resourceTemplates", options);
  }

  listResourceTemplatesPage(options: PageOptions = {}): Promise<ListResourceTemplatesResult> {
    return this.call(
      Method.resourcesTemplatesList,
      cursorParams(options),
      ListResourceTemplatesResultSchema,
      "listResourceTemplates",
      options,
    );
  }

  readResource(uri: string, options: CallOptions = {}): Promise<ReadResourceResult> {
    return this.call(Method.resourcesRead, { uri }, ReadResourceResultSchema, `readResource ${quote(uri)}`, options);
  }

  async subscribeResource(uri: string, options: CallOptions = {}): Promise<void> {
    await this.call(Method.resourcesSubscribe, { uri }, EmptyResultSchema, `subscribeResource ${quote(uri)}`, options);
  }

  async unsubscribeResource(uri: string, options: CallOptions = {}): Promise<void> {
    await this.call(Method.resourcesUnsubscribe, { uri }, EmptyResultSchema, `unsubscribeResource ${quote(uri)}`, options);
  }

  // --- Prompts

  async listPrompts(options: CallOptions = {}): Promise<Prompt[]> {
    return this.collect((page) => this.listPromptsPage(page), "prompts", options);
  }

  listPromptsPage(options: PageOptions = {}): Promise<ListPromptsResult> {
    return this.call(Method.promptsList, cursorParams(options), ListPromptsResultSchema, "listPrompts", options);
  }

  getPrompt(name: string, args: Record<string, string> = {}, options: CallOptions = {}): Promise<GetPromptResult> {
    return this.call(Method.promptsGet, { name, arguments: args }, GetPromptResultSchema, `getPrompt ${quote(name)}`, options);
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
    return this.call(Method.completionComplete, params, CompleteResultSchema, "complete", callOptions);
  }

  async setLoggingLevel(level: LoggingLevel, options: CallOptions = {}): Promise<void> {
    await this.call(Method.loggingSetLevel, { level }, EmptyResultSchema, "setLoggingLevel", options);
  }

  async ping(options: CallOptions = {}): Promise<void> {
    await this.call(Method.ping, undefined, EmptyResultSchema, "ping", options);
  }

  // --- Notifications from the server

  /** Any server notification by method; returns the function that stops listening. */
  onNotification(method: string, listener: (params: Record<string, unknown>) => void): () => void {
    return this.session.onNotification(method, listener);
  }

  onToolsListChanged(listener: () => void): () => void {
    return this.session.onNotification(Notification.toolsListChanged, () => listener());
  }

  onResourcesListChanged(listener: () => void): () => void {
    return this.session.onNotification(Notification.resourcesListChanged, () => listener());
  }

  onPromptsListChanged(listener: () => void): () => void {
    return this.session.onNotification(Notification.promptsListChanged, () => listener());
  }

  /** `notifications/resources/updated` for a subscribed resource; malformed notices are dropped. */
  onResourceUpdated(listener: (update: { uri: string }) => void): () => void {
    return this.session.onNotification(Notification.resourceUpdated, (params) => {
      const parsed = ResourceUpdatedParamsSchema.safeParse(params);
      if (parsed.success) listener(parsed.data);
    });
  }

  /** `notifications/message` log entries; malformed entries are dropped. */
  onLoggingMessage(listener: (entry: LoggingMessageParams) => void): () => void {
    return this.session.onNotification(Notification.message, (params) => {
      const parsed = LoggingMessageParamsSchema.safeParse(params);
      if (parsed.success) listener(parsed.data);
    });
  }

  /** Any progress notification, whether or not a request asked for it with `onProgress`. */
  onProgress(listener: (params: Record<string, unknown>) => void): () => void {
    return this.session.onNotification(Notification.progress, listener);
  }

  /** Tells the server that the roots changed (the `roots` handler will be asked again). */
  notifyRootsListChanged(): Promise<void> {
    return this.session.notify(Notification.rootsListChanged);
  }

  // --- Ending

  /** Closes the connection and releases everything it holds. Idempotent. */
  close(): Promise<void> {
    return this.session.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  private ready(): InitializeResult {
    if (!this.handshakeResult) throw new Error("the client is not connected yet: await connect() first");
    return this.handshakeResult;
  }

  private async call<S extends z.ZodType>(
    method: string,
    params: Record<string, unknown> | undefined,
    schema: S,
    label: string,
    options: CallOptions,
  ): Promise<z.output<S>> {
    const requestOptions = { ...options, label };
    let raw: Record<string, unknown>;
    try {
      raw = await this.session.request(method, params, requestOptions);
    } catch (error) {
      if (!(error instanceof McpTransportError) || !error.sessionExpired) throw error;
      // The server forgot the session (HTTP 404): initialize again, then retry this request once.
      await this.renewSession(options.signal);
      raw = await this.session.request(method, params, requestOptions);
    }
    return parseResult(schema, raw, label, this.session.description);
  }

  /** Runs the handshake again on the same connection; concurrent callers share one handshake. */
  private renewSession(signal: AbortSignal | undefined): Promise<void> {
    this.renewal ??= this.handshake(signal).finally(() => (this.renewal = undefined));
    return this.renewal;
  }

  private async handshake(signal: AbortSignal | undefined): Promise<void> {
    const handshake = await initializeLegacy(this.session, {
      clientInfo: this.options.clientInfo ?? { name: "mcpwire", version: packageJson.version },
      capabilities: capabilitiesFor(this.options.handlers ?? {}, this.options.capabilities),
      protocolVersion: this.options.protocolVersion,
      signal,
      timeoutMs: this.session.limits.timeoutMs,
    });
    this.handshakeResult = handshake.result;
    this.revision = handshake.protocolVersion;
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
      `listing ${key} did not end within ${this.maxPages} pages (maxPages) or repeated a cursor (${this.session.description})`,
    );
  }
}

function cursorParams(options: PageOptions): Record<string, unknown> | undefined {
  return options.cursor === undefined ? undefined : { cursor: options.cursor };
}

function quote(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 77)}...` : text);
}

function checkMaxPages(value: unknown): number {
  if (value === undefined) return DEFAULT_MAX_PAGES;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
    throw new TypeError(`options: "maxPages" must be a whole number of at least 1, got ${String(value)}`);
  }
  return value;
}
