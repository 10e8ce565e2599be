/**
 * The MCP conversation's typed API: tools, resources, prompts, completion, logging, pagination,
 * results validated against the schema, listeners for server notifications, and `request()` and
 * `notify()` for methods without a typed call. The connection itself (opening, the era,
 * reconnection) is owned by `ServerConnection`.
 */
import { McpTransportError } from "../errors.js";
import { Method, Notification } from "../protocol/methods.js";
import type { DiscoverResult } from "../protocol/modern.js";
import { schemas, schemasOf, type Schemas } from "../protocol/schema-registry.js";
import type { Infer, Type } from "../protocol/valita.js";
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
import type { ConnectionEnding, McpTransport } from "../transport/transport.js";
import { TransportSession, type RequestOptions } from "../session/session.js";
import { checkWholeNumber } from "../util/whole-number.js";
import { CLIENT_OPTION_NAMES, checkClientOptionNames, type ClientOptions } from "./client-options.js";
import { checkClientOptionValues } from "./client-option-values.js";
import type { ElicitationCompletion } from "./elicitation-completions.js";
import type { EraName, ProtocolEra } from "./era.js";
import { ModernEra } from "./modern-era.js";
import { OutputSchemas, checkValidateOutput } from "./output-schema.js";
import { ServerConnection } from "./server-connection.js";
import type { TaskState } from "./tasks/task-state.js";
import type { TaskRequest } from "./tasks/task-support.js";
import type { TaskHost } from "./tasks/task-wire.js";
import type { ToolTask } from "./tasks/tool-task.js";
import { ToolTasks, type StartToolTaskOptions } from "./tasks/tool-tasks.js";
import { ToolCatalog, listsNoTools } from "./tool-catalog.js";
import { checkSubscriptionFilter, type SubscriptionFilter } from "./subscriptions.js";
import { checkLimit } from "../transport/limits.js";
import { checkRawNotification, checkRawRequest, withCallerMeta } from "./raw-calls.js";
import { sentOptions } from "./request-options.js";
import { badToolCall, checkCompletion, checkLoggingLevel, checkNonEmptyString, checkPromptCall, checkToolCall, checkUri } from "./call-arguments.js";
import {
  CALL_OPTIONS,
  COMPLETE_OPTIONS,
  LISTEN_OPTIONS,
  NOTIFY_OPTIONS,
  PAGE_OPTIONS,
  RAW_REQUEST_OPTIONS,
  START_TOOL_TASK_OPTIONS,
  TASK_HANDLE_OPTIONS,
  TASK_PAGE_OPTIONS,
  TOOL_CALL_OPTIONS,
  checkCallOptions,
  checkListenerOption,
} from "./call-option-names.js";
import { isStandardSchema, matching, parseResult, parseWithSchema, type StandardSchemaV1 } from "./validate.js";

export { CLIENT_OPTION_NAMES, type ClientOptions };

/** Options of every call: the deadline, the abort signal, progress, `_meta` entries. */
export interface CallOptions extends Omit<RequestOptions, "label" | "onLateResult"> {
  /**
   * Entries added to the request's `params._meta`, e.g. a W3C `traceparent`. Keys the protocol
   * owns (`progressToken`, and any under a prefix MCP reserves, such as `io.modelcontextprotocol/`)
   * are refused with a TypeError: the client sets those itself.
   */
  meta?: Record<string, unknown>;
}

/** Options of `request()`: those of every call, and the schema its result is checked with. */
export interface RawRequestOptions<T = Record<string, unknown>> extends CallOptions {
  /**
   * Checks the result: any Standard Schema (a zod schema, valibot, ArkType...). A result that
   * does not match fails with PROTOCOL, naming the method and the first failing path. Without
   * one, the result object is returned as the server sent it.
   */
  schema?: StandardSchemaV1<unknown, T>;
}

/** Options of `notify()`. */
export interface NotifyOptions {
  /** Entries added to the notification's `params._meta`, with the same rules as `CallOptions.meta`. */
  meta?: Record<string, unknown>;
}

export interface PageOptions extends CallOptions {
  cursor?: string;
}

export interface ToolCallOptions extends CallOptions {
  /**
   * Checks this result's `structuredContent` against the tool's `outputSchema` (see
   * `ClientOptions.validateOutput`). @default the client's `validateOutput`, itself true
   */
  validateOutput?: boolean;
  /**
   * Runs the call as a task: `true`, or `{ ttlMs }` to ask the server to keep the task that long.
   * Needed for a tool whose `execution.taskSupport` is `optional`; a `required` one runs as a task
   * whatever this says, and a call asking it of a tool that runs no tasks is refused before
   * anything is sent (PROTOCOL, kind `task_unsupported`). In revision 2026-07-28 the server
   * decides (tasks extension): this only checks that the server declares the extension.
   * @default false: only a tool that requires it runs as a task
   */
  task?: boolean | TaskRequest;
  /** Each new state of the task (status, status message), when the call runs as one. */
  onTaskStatus?: (state: TaskState) => void;
}

/** Options of `listTasksPage()`. */
export interface TaskPageOptions extends CallOptions {
  cursor?: string;
}

export const DEFAULT_MAX_PAGES = 100;

/** `callTool`'s options when none are given: the one object it need not check. */
const NO_TOOL_CALL_OPTIONS: ToolCallOptions = Object.freeze({});

/** The schemas a typed method validates its result with, by name (see schema-registry.ts). */
type ResultSchemaName = {
  [K in keyof Schemas]: K extends `${string}ResultSchema` ? K : never;
}[keyof Schemas];

export class McpClient {
  private readonly connection: ServerConnection;
  private readonly maxPages: number;
  private readonly validateOutput: boolean;
  private readonly tools = new ToolCatalog();
  private readonly outputSchemas = new OutputSchemas(this.tools);
  private readonly toolTasks: ToolTasks;

  /**
   * A client over a session that is not yet open; `connect()` (below) or `McpClient.connect`
   * open and initialize it. Most code wants the package's `connect(target)`.
   */
  constructor(session: TransportSession, options: ClientOptions = {}) {
    checkClientOptionNames(options);
    checkClientOptionValues(options);
    this.maxPages = checkMaxPages(options.maxPages);
    this.validateOutput = checkValidateOutput(options.validateOutput, "options") ?? true;
    this.connection = new ServerConnection(session, options);
    // What is known of the tools (output schemas, task support) is the latest list's: a change
    // makes it stale, and so does a reconnection, since the server may have changed (been
    // upgraded, restarted) while it was away.
    const forgetTools = () => {
      this.tools.forget();
      this.outputSchemas.forget();
    };
    this.connection.onNotification(Notification.toolsListChanged, forgetTools);
    this.connection.onReconnected(forgetTools);
    this.toolTasks = new ToolTasks(this.taskHost(options));
  }

  /** The session of the current connection (a new one after each reconnection). */
  get session(): TransportSession {
    return this.connection.session;
  }

  /** Opens a transport and runs the handshake; nothing is left running when it fails. */
  static async connect(transport: McpTransport, options: ClientOptions = {}): Promise<McpClient> {
    // `this`, not the class's own name: a class that names itself inside its body is renamed in
    // the build (scripts/build.mjs), and test/build/dist.test.ts checks every exported name.
    const client = new this(new TransportSession(transport, options), options);
    await client.connect();
    return client;
  }

  /**
   * Opens the connection and settles the protocol (the era probe, then the handshake or
   * discovery), all within `timeoutMs` and `signal`. On any failure everything opened is closed
   * before the error is thrown.
   */
  connect(): Promise<void> {
    return this.connection.open();
  }

  /** The kind of wire this client reached its server over ("stdio", "streamable-http", ...). */
  get transportKind(): string {
    return this.connection.session.wireKind;
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
    return this.connection.ended;
  }

  // --- Tools

  /** Every tool, following `nextCursor` to the end. */
  async listTools(options: CallOptions = {}): Promise<Tool[]> {
    checkCallOptions(options, CALL_OPTIONS, "listTools");
    const generation = this.tools.generation;
    const tools = await this.collect<"tools", Tool>((page) => this.listToolsPage(page), "tools", options);
    this.rememberTools(tools, true, generation);
    return tools;
  }

  /** One page of tools. */
  async listToolsPage(options: PageOptions = {}): Promise<ListToolsResult> {
    const generation = this.tools.generation;
    const page = await this.call(Method.toolsList, cursorParams(options), "ListToolsResultSchema", "listTools", options, PAGE_OPTIONS);
    this.rememberTools(page.tools, false, generation);
    return page;
  }

  /**
   * Calls a tool. A result with `isError: true` is the tool's own failure and is returned, not
   * thrown: it is an answer the caller (or an agent) can read.
   *
   * Any other result of a tool that declares an `outputSchema` must carry `structuredContent`
   * that conforms to it, or the call fails with PROTOCOL, kind `output_schema` (unless
   * `validateOutput` is false). The schema is the latest tool list's; a tool not listed yet is
   * listed once, after its first result (before the call, on a server that runs tools as tasks);
   * a listing that fails fails the call, unless the server has no `tools/list` at all (-32601).
   *
   * A tool that runs as a task (its `execution.taskSupport` is `required`, or `optional` and
   * `task` asks for it; in revision 2026-07-28, whenever the server answers with a task) is
   * followed to its result: the client polls `tasks/get` at the server's `pollInterval` (sooner
   * on a status notification), answers the server's questions through `options.handlers`, and
   * resolves with the final result, checked as above. `timeoutMs` bounds the whole task; an abort,
   * the timeout or any failure before its end sends `tasks/cancel`. `startToolTask` gives the
   * task itself instead.
   */
  callTool(name: string, args: Record<string, unknown> = {}, options: ToolCallOptions = NO_TOOL_CALL_OPTIONS): Promise<CallToolResult> {
    // Not an async function: on the path of every call, its promise and its await were one more
    // step of the microtask queue than the one `then` needs. Bad input still rejects, never throws.
    let label: string;
    let validate: boolean;
    let raw: Promise<Record<string, unknown>>;
    try {
      // checkToolCall's test, inline: a function here would be one more on every call's path.
      if (typeof name !== "string" || name === "" || typeof args !== "object" || args === null || Array.isArray(args)) throw badToolCall("callTool", name, args);
      label = `callTool ${quote(name)}`;
      // Checked only when given: a call without options takes nothing more on its way.
      if (options !== NO_TOOL_CALL_OPTIONS) {
        checkCallOptions(options, TOOL_CALL_OPTIONS, label);
        // The test inline, the throw in the named check: nothing more on a good call's path.
        if (options.onTaskStatus !== undefined && typeof options.onTaskStatus !== "function") checkListenerOption(options.onTaskStatus, "onTaskStatus", label);
      }
      validate = options.validateOutput === undefined ? this.validateOutput : checkValidateOutput(options.validateOutput, `${label} options`)!;
      raw = this.toolTasks.call(name, args, { ...options, label });
    } catch (error) {
      return Promise.reject(error);
    }
    return raw.then((result) => this.toolResult(result, name, label, validate, options));
  }

  // --- Tasks

  /**
   * Starts a tool as a task and resolves with its handle once the server accepted it, for a
   * caller who wants the task itself: its id (to keep), `status()`, `result()`, `cancel()`,
   * `onStatus`, `onProgress`. In revision 2025-11-25 the tool's `execution.taskSupport` must be
   * `optional` or `required` and the server must declare `tasks.requests.tools.call`; otherwise
   * it is refused before anything is sent (PROTOCOL, kind `task_unsupported`). In revision
   * 2026-07-28 the server decides: it may answer at once, and the handle's `id` is then undefined.
   */
  startToolTask(name: string, args: Record<string, unknown> = {}, options: StartToolTaskOptions = {}): Promise<ToolTask> {
    let label: string;
    try {
      checkToolCall("startToolTask", name, args);
      label = `startToolTask ${quote(name)}`;
      checkCallOptions(options, START_TOOL_TASK_OPTIONS, label);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.toolTasks.start(name, args, { ...options, label });
  }

  /**
   * The handle of a task known by its id (kept from `task.id`, from an earlier connection or
   * process): nothing is sent until it is asked. Give the tool's name to have its result checked
   * against the tool's `outputSchema`.
   */
  task(taskId: string, options: { tool?: string } = {}): ToolTask {
    checkNonEmptyString(taskId, "client.task(taskId)", "the task id");
    checkCallOptions(options, TASK_HANDLE_OPTIONS, "client.task(taskId, options)");
    if (options.tool !== undefined && typeof options.tool !== "string") throw new TypeError("client.task(taskId, { tool }): tool must be a tool's name");
    this.ready();
    return this.toolTasks.resume(taskId, options.tool);
  }

  /**
   * Every task the server lists for this client (`tasks/list`, revision 2025-11-25, where the
   * server declares `tasks.list`), following `nextCursor` to the end. The tasks extension of
   * revision 2026-07-28 has no list: there it fails with kind `task_unsupported`.
   */
  async listTasks(options: CallOptions = {}): Promise<TaskState[]> {
    checkCallOptions(options, CALL_OPTIONS, "listTasks");
    return this.collect((page) => this.listTasksPage(page), "tasks", options);
  }

  /** One page of `tasks/list`. */
  listTasksPage(options: TaskPageOptions = {}): Promise<{ tasks: TaskState[]; nextCursor?: string }> {
    try {
      checkCallOptions(options, TASK_PAGE_OPTIONS, "listTasksPage");
    } catch (error) {
      return Promise.reject(error);
    }
    const { cursor, ...callOptions } = options;
    return this.toolTasks.listPage(cursor, { ...callOptions, label: "listTasks" });
  }

  // --- Resources

  async listResources(options: CallOptions = {}): Promise<Resource[]> {
    checkCallOptions(options, CALL_OPTIONS, "listResources");
    return this.collect((page) => this.listResourcesPage(page), "resources", options);
  }

  listResourcesPage(options: PageOptions = {}): Promise<ListResourcesResult> {
    return this.call(Method.resourcesList, cursorParams(options), "ListResourcesResultSchema", "listResources", options, PAGE_OPTIONS);
  }

  async listResourceTemplates(options: CallOptions = {}): Promise<ResourceTemplate[]> {
    checkCallOptions(options, CALL_OPTIONS, "listResourceTemplates");
    return this.collect((page) => this.listResourceTemplatesPage(page), "resourceTemplates", options);
  }

  listResourceTemplatesPage(options: PageOptions = {}): Promise<ListResourceTemplatesResult> {
    return this.call(
      Method.resourcesTemplatesList,
      cursorParams(options),
      "ListResourceTemplatesResultSchema",
      "listResourceTemplates",
      options,
      PAGE_OPTIONS,
    );
  }

  readResource(uri: string, options: CallOptions = {}): Promise<ReadResourceResult> {
    try {
      checkUri(uri, "readResource");
    } catch (error) {
      return Promise.reject(error);
    }
    return this.call(Method.resourcesRead, { uri }, "ReadResourceResultSchema", `readResource ${quote(uri)}`, options);
  }

  async subscribeResource(uri: string, options: CallOptions = {}): Promise<void> {
    checkUri(uri, "subscribeResource");
    await this.call(Method.resourcesSubscribe, { uri }, "EmptyResultSchema", `subscribeResource ${quote(uri)}`, options);
  }

  async unsubscribeResource(uri: string, options: CallOptions = {}): Promise<void> {
    checkUri(uri, "unsubscribeResource");
    await this.call(Method.resourcesUnsubscribe, { uri }, "EmptyResultSchema", `unsubscribeResource ${quote(uri)}`, options);
  }

  // --- Prompts

  async listPrompts(options: CallOptions = {}): Promise<Prompt[]> {
    checkCallOptions(options, CALL_OPTIONS, "listPrompts");
    return this.collect((page) => this.listPromptsPage(page), "prompts", options);
  }

  listPromptsPage(options: PageOptions = {}): Promise<ListPromptsResult> {
    return this.call(Method.promptsList, cursorParams(options), "ListPromptsResultSchema", "listPrompts", options, PAGE_OPTIONS);
  }

  getPrompt(name: string, args: Record<string, string> = {}, options: CallOptions = {}): Promise<GetPromptResult> {
    try {
      checkPromptCall(name, args);
    } catch (error) {
      return Promise.reject(error);
    }
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
    try {
      checkCompletion(ref, argument);
      checkCallOptions(options, COMPLETE_OPTIONS, "complete");
    } catch (error) {
      return Promise.reject(error);
    }
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
    checkLoggingLevel(level);
    checkCallOptions(options, CALL_OPTIONS, "setLoggingLevel");
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

  // --- Methods without a typed call

  /**
   * Sends a request mcpwire has no typed call for (an extension's, a newer revision's) the way
   * the typed calls are sent: in the era settled with the server (its `_meta` and headers),
   * within the same ceilings, `timeoutMs`, `signal` and progress, waiting for a reconnection
   * under way. Resolves with the result, checked with `options.schema` when one is given.
   * A method that has a typed call, or that belongs to the protocol's own machinery
   * (`initialize`, `server/discover`), is refused with a TypeError naming what to use.
   */
  request<T>(method: string, params: Record<string, unknown> | undefined, options: RawRequestOptions<T> & { schema: StandardSchemaV1<unknown, T> }): Promise<T>;
  request(method: string, params?: Record<string, unknown>, options?: RawRequestOptions): Promise<Record<string, unknown>>;
  async request(method: string, params?: Record<string, unknown>, options: RawRequestOptions<unknown> = {}): Promise<unknown> {
    checkRawRequest(method, params);
    checkCallOptions(options, RAW_REQUEST_OPTIONS, `request ${quote(method)}`);
    const { schema, ...callOptions } = options;
    if (schema !== undefined && !isStandardSchema(schema)) {
      throw new TypeError(`client.request(${JSON.stringify(method)}): options.schema must be a Standard Schema (a zod schema, for one)`);
    }
    const label = `request ${quote(method)}`;
    const raw = await this.send(method, params, { ...callOptions, label });
    return schema === undefined ? raw : parseWithSchema(schema, raw, label, this.connection.session.description);
  }

  /**
   * Sends a notification mcpwire has no typed call for, in the current era, once any
   * reconnection under way is done. Resolves when it is handed to the wire. Notifications that
   * belong to the protocol (`notifications/initialized`, `notifications/cancelled`) are refused.
   */
  async notify(method: string, params?: Record<string, unknown>, options: NotifyOptions = {}): Promise<void> {
    checkRawNotification(method, params);
    const label = `notify ${quote(method)}`;
    checkCallOptions(options, NOTIFY_OPTIONS, label);
    await this.connection.notify(method, label, options.meta === undefined ? params : withCallerMeta(params, options.meta, label));
  }

  // --- Notifications from the server

  /** Any server notification by method; returns the function that stops listening. */
  onNotification(method: string, listener: (params: Record<string, unknown>) => void): () => void {
    return this.connection.onNotification(method, listener);
  }

  /**
   * Called after each successful reconnection (see `reconnect`), before the requests that waited
   * for it go on. The server may have changed while it was away, without a list-changed
   * notification: list again what you keep. Returns the function that stops listening.
   */
  onReconnected(listener: () => void): () => void {
    return this.connection.onReconnected(listener);
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
      const update = matching(schemas().ResourceUpdatedParamsSchema, params);
      if (update !== undefined) listener(update);
    });
  }

  /** `notifications/message` log entries; malformed entries are dropped. */
  onLoggingMessage(listener: (entry: LoggingMessageParams) => void): () => void {
    return this.onNotification(Notification.message, (params) => {
      const entry = matching(schemas().LoggingMessageParamsSchema, params);
      if (entry !== undefined) listener(entry);
    });
  }

  /**
   * `notifications/elicitation/complete` (2025-11-25): the server says the out-of-band part of a
   * URL elicitation is done. Only elicitations this client handed to its URL handler are told,
   * each once; a notification naming another id is ignored. The handler itself has the same news
   * as its request's `completed` promise.
   */
  onElicitationComplete(listener: (completion: ElicitationCompletion) => void): () => void {
    return this.connection.onElicitationComplete(listener);
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
    checkSubscriptionFilter(filter);
    checkCallOptions(options, LISTEN_OPTIONS, "listen");
    const timeoutMs = options.timeoutMs === undefined ? undefined : checkLimit("timeoutMs", options.timeoutMs, "listen");
    return this.connection.listen(filter, timeoutMs);
  }

  /** Tells the server that the roots changed (the `roots` handler will be asked again). */
  async notifyRootsListChanged(): Promise<void> {
    await this.connection.notify(Notification.rootsListChanged, "notifyRootsListChanged");
  }

  // --- Ending

  /** Closes the connection and releases everything it holds. Idempotent. */
  async close(): Promise<void> {
    await this.connection.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }


  /** A listing returned: the catalog keeps it, and the compiled output checks follow it. */
  private rememberTools(tools: readonly Tool[], whole: boolean, generation: number): void {
    if (this.tools.remember(tools, whole, generation)) this.outputSchemas.refresh(tools, whole);
  }

  /**
   * The tool as the latest list describes it, listing the tools when they are not known yet. A
   * server that has no `tools/list` (-32601) counts as one without tools until the list changes:
   * the tool is then unchecked, as one that is not listed is. Any other failure of the listing
   * (a -32603, a bad answer, a timeout) is the caller's failure and is not remembered: a guess
   * would turn off the output check and the task a tool requires, so the next call lists again.
   */
  private findTool(name: string, options: Pick<CallOptions, "signal" | "timeoutMs">, label: string): Promise<Tool | undefined> {
    return this.tools
      .find(name, async () => {
        const generation = this.tools.generation;
        try {
          return await this.listTools({ signal: options.signal, timeoutMs: options.timeoutMs });
        } catch (error) {
          if (!listsNoTools(error)) throw error;
          this.rememberTools([], true, generation);
          return [];
        }
      })
      .catch((error: unknown) => {
        throw listingFailureOf(error, label);
      });
  }

  /**
   * A tool's final result: the MCP schema, then (unless an `isError` one) the tool's
   * `outputSchema`. Returned as it is, without a promise, when the latest list already says the
   * tool has no schema (the common case); the check of a schema, or a listing, is a promise.
   */
  private toolResult(
    raw: Record<string, unknown>,
    tool: string | undefined,
    label: string,
    validate: boolean,
    options: Pick<CallOptions, "signal" | "timeoutMs">,
  ): CallToolResult | Promise<CallToolResult> {
    const where = this.connection.session.description;
    const result = parseResult(schemasOf(this.ready().name).CallToolResultSchema, raw, label, where);
    if (!validate || result.isError === true || tool === undefined) return result;
    const known = this.tools.peek(tool);
    if (known !== undefined) return this.checkOutput(known.tool, result, label, where);
    return this.findTool(tool, options, label).then((found) => this.checkOutput(found, result, label, where));
  }

  /** `result` checked against the `outputSchema` of `tool` (as the latest list has it), if it has one. */
  private checkOutput(tool: Tool | undefined, result: CallToolResult, label: string, where: string): CallToolResult | Promise<CallToolResult> {
    const schema = tool?.outputSchema ?? null;
    if (schema === null) return result;
    return this.outputSchemas.check(tool!.name, schema, result, label, where).then(() => result);
  }

  /** What the tasks borrow of this client: its connection, handlers and result checks. */
  private taskHost(options: ClientOptions): TaskHost {
    const connection = this.connection;
    return {
      get era() {
        return connection.era;
      },
      get session() {
        return connection.session;
      },
      handlers: options.handlers ?? {},
      request: (method, params, requestOptions, onDispatch) => this.send(method, params, requestOptions, onDispatch),
      afterUrlElicitations: (error, attempt, request) => connection.afterUrlElicitations(error, attempt, request),
      onNotification: (method, listener) => connection.onNotification(method, listener),
      peekTool: (name) => this.tools.peek(name),
      findTool: (name, findOptions, label) => this.findTool(name, findOptions, label),
      toolResult: async (raw, tool, label, validate, resultOptions) =>
        this.toolResult(raw, tool, label, checkValidateOutput(validate, `${label} options`) ?? this.validateOutput, resultOptions),
    };
  }

  private ready(): ProtocolEra {
    return this.connection.era;
  }

  /** One typed request, sent the way the era sends it, its result validated. */
  private async call<K extends ResultSchemaName>(
    method: string,
    params: Record<string, unknown> | undefined,
    schema: K,
    label: string,
    options: CallOptions,
    names: ReadonlySet<string> = CALL_OPTIONS,
  ): Promise<Infer<Schemas[K]>> {
    checkCallOptions(options, names, label);
    const raw = await this.send(method, params, { ...options, label });
    return parseResult(schemasOf(this.ready().name)[schema] as Type, raw, label, this.connection.session.description) as Infer<Schemas[K]>;
  }

  /**
   * One request as the connection sends it, the caller's `meta` merged into its `_meta`. The
   * connection, the era and the session get options of their own: handed the task layer's object
   * itself (with its dispatch hook), each request's objects outlived young-generation collections
   * more than twice as often, about 3 MiB more peak RSS on the bench (bench/RESULTS.md, "Hot path
   * (issue 20)").
   */
  private send(
    method: string,
    params: Record<string, unknown> | undefined,
    options: CallOptions & { label: string },
    onDispatch: RequestOptions["onDispatch"] = options.onDispatch,
  ): Promise<Record<string, unknown>> {
    if (options.meta === undefined) return this.connection.request(method, params, sentOptions(options, onDispatch));
    let sent: Record<string, unknown>;
    try {
      sent = withCallerMeta(params, options.meta, options.label);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.connection.request(method, sent, sentOptions(options, onDispatch));
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
      `listing ${key} did not end within ${this.maxPages} pages (maxPages) or repeated a cursor (${this.connection.session.description})`,
      { kind: "page_limit" },
    );
  }
}

/**
 * The failure of a listing a call made on its own (the caller asked for a tool, not for the
 * list), named for that call: `callTool "x": ...`. Everything else is the listing's: reason,
 * retryable, kind, code, method `tools/list`, cause. An abort is the caller's reason, as it is.
 */
function listingFailureOf(error: unknown, label: string): unknown {
  if (!(error instanceof McpTransportError)) return error;
  return error.with({}, `${label}: listing the tools first (for the tool's outputSchema or taskSupport) failed: ${error.message}`);
}

function cursorParams(options: PageOptions): Record<string, unknown> | undefined {
  return options.cursor === undefined ? undefined : { cursor: options.cursor };
}

function quote(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 77)}...` : text);
}

function checkMaxPages(value: unknown): number {
  return value === undefined ? DEFAULT_MAX_PAGES : checkWholeNumber(value, "maxPages", "options", { min: 1, defaultValue: DEFAULT_MAX_PAGES });
}
