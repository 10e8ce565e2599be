/**
 * What `client.request()` and `client.notify()` may send, and the caller's `_meta` entries that
 * every call may carry (`meta`).
 *
 * A method mcpwire has a typed call for is refused on the raw path, naming that call: the typed
 * call validates the result and keeps the bookkeeping that goes with it (subscriptions resumed
 * after a reconnection, the modern era's list of tools). So is what belongs to the protocol's
 * own machinery (the handshake, discovery, cancellation), which sent by hand would break the
 * session. All of these are TypeErrors: they are mistakes in the calling code, found before
 * anything reaches the wire.
 */
import { Method, Notification } from "../protocol/methods.js";
import { ModernMethod } from "../protocol/modern.js";
import { TaskMethod } from "../protocol/tasks.js";
import { checkNonEmptyString } from "./call-arguments.js";
import { isPlainObject } from "../util/plain-object.js";

/** Requests refused by `request()`, with what to use instead. */
const OWNED_REQUESTS: ReadonlyMap<string, string> = new Map([
  [Method.initialize, "the handshake belongs to the client: connect() runs it, and runs it again after a reconnection"],
  [ModernMethod.discover, "discovery belongs to the client: connect() runs it; read client.discovery"],
  [ModernMethod.subscriptionsListen, "use client.listen(filter), which keeps the stream open and opens it again after a reconnection"],
  [Method.ping, "use client.ping()"],
  [Method.toolsList, "use client.listTools() or client.listToolsPage()"],
  [Method.toolsCall, "use client.callTool(name, args, options)"],
  [Method.resourcesList, "use client.listResources() or client.listResourcesPage()"],
  [Method.resourcesTemplatesList, "use client.listResourceTemplates() or client.listResourceTemplatesPage()"],
  [Method.resourcesRead, "use client.readResource(uri)"],
  [Method.resourcesSubscribe, "use client.subscribeResource(uri) or client.listen({ resourceSubscriptions: [uri] })"],
  [Method.resourcesUnsubscribe, "use client.unsubscribeResource(uri)"],
  [Method.promptsList, "use client.listPrompts() or client.listPromptsPage()"],
  [Method.promptsGet, "use client.getPrompt(name, args)"],
  [Method.completionComplete, "use client.complete(ref, argument)"],
  [Method.loggingSetLevel, "use client.setLoggingLevel(level)"],
  [TaskMethod.get, "use client.task(id).status()"],
  [TaskMethod.result, "use client.task(id).result(), or callTool(), which waits for the task"],
  [TaskMethod.update, "use client.task(id).result(), which answers the task's questions through options.handlers"],
  [TaskMethod.cancel, "use client.task(id).cancel()"],
  [TaskMethod.list, "use client.listTasks() or client.listTasksPage()"],
  [Method.samplingCreateMessage, "the server sends it to the client; answer it with options.handlers.sampling"],
  [Method.elicitationCreate, "the server sends it to the client; answer it with options.handlers.elicitation"],
  [Method.rootsList, "the server sends it to the client; answer it with options.handlers.roots"],
]);

/** Notifications refused by `notify()`, with what to use instead. */
const OWNED_NOTIFICATIONS: ReadonlyMap<string, string> = new Map([
  [Notification.initialized, "the handshake belongs to the client: connect() sends it after initialize"],
  [Notification.cancelled, "abort the request's options.signal instead; the client tells the server"],
  [Notification.rootsListChanged, "use client.notifyRootsListChanged()"],
]);

/**
 * Every notification MCP defines is named `notifications/...`, and no request is: sent as a
 * request, one waits for an answer no server gives (and the server may take it for the
 * notification); a request sent as a notification is never answered.
 */
const NOTIFICATION_PREFIX = "notifications/";

/** Refuses a method `request()` must not send, and arguments that are not a method and params. */
export function checkRawRequest(method: unknown, params: unknown): asserts method is string {
  checkRaw("request", method, params, OWNED_REQUESTS);
  if (method.startsWith(NOTIFICATION_PREFIX)) {
    throw new TypeError(
      `client.request(${JSON.stringify(method)}) is refused: it names a notification, which has no answer; ` +
        `send it with client.notify(method, params)`,
    );
  }
}

/** Refuses a notification `notify()` must not send, and arguments that are not a method and params. */
export function checkRawNotification(method: unknown, params: unknown): asserts method is string {
  checkRaw("notify", method, params, OWNED_NOTIFICATIONS);
  const request = OWNED_REQUESTS.get(method);
  if (request !== undefined) {
    throw new TypeError(`client.notify(${JSON.stringify(method)}) is refused: it names a request, which a notification never answers; ${request}`);
  }
}

function checkRaw(call: string, method: unknown, params: unknown, owned: ReadonlyMap<string, string>): asserts method is string {
  checkNonEmptyString(method, `client.${call}`, "the method");
  const instead = owned.get(method);
  if (instead !== undefined) throw new TypeError(`client.${call}(${JSON.stringify(method)}) is refused: ${instead}`);
  if (params !== undefined && !isPlainObject(params)) throw new TypeError(`client.${call}(${JSON.stringify(method)}): params must be an object or undefined`);
  if (params?._meta !== undefined) checkMetaKeys(params._meta, `client.${call}(${JSON.stringify(method)}): params._meta`);
}

/**
 * The params with the caller's `meta` entries merged into `_meta`, as a new object (the caller's
 * stay as they were). Keys the protocol owns are refused: the progress token, and every key under
 * a prefix MCP reserves (its second label `modelcontextprotocol` or `mcp`, as in
 * `io.modelcontextprotocol/`), which the client sets itself where the revision needs them.
 */
export function withCallerMeta(params: Record<string, unknown> | undefined, meta: unknown, label: string): Record<string, unknown> {
  checkMetaKeys(meta, `${label}: options.meta`);
  const merged: Record<string, unknown> = { ...(params?._meta as Record<string, unknown> | undefined), ...meta };
  return { ...params, _meta: merged };
}

function checkMetaKeys(meta: unknown, where: string): asserts meta is Record<string, unknown> {
  if (!isPlainObject(meta)) throw new TypeError(`${where} must be an object of _meta entries`);
  for (const key of Object.keys(meta)) {
    if (isProtocolKey(key)) {
      throw new TypeError(
        `${where} may not set ${JSON.stringify(key)}: the protocol owns it, and the client sets it itself` +
          (key === "progressToken" ? " (pass onProgress to hear progress)" : " (MCP reserves the prefix)"),
      );
    }
  }
}

/** `progressToken`, or a key whose prefix MCP reserves (basic/index, "_meta"). */
function isProtocolKey(key: string): boolean {
  if (key === "progressToken") return true;
  const slash = key.lastIndexOf("/");
  if (slash < 0) return false;
  const second = key.slice(0, slash).split(".")[1]?.toLowerCase();
  return second === "modelcontextprotocol" || second === "mcp";
}
